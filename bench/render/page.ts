/**
 * The page of bench/render.mjs: the widget UI with a test-only context (the
 * stores the widget core would fill), driven from the bench through
 * `window.__bench`. Bundled minified, in production mode.
 */
import '../../src/define.ts';
import type { CharlaWidget } from '../../src/components/widget/widget.ts';
import type { Message } from '../../types/index.ts';
import { makeContext, msg, room } from '../../test/unit/components/fixture.ts';

const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
/** Resolves after the frame's rendering work (a task queued from rAF runs after paint). */
const afterPaint = () =>
  new Promise<number>((r) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => r(performance.now());
      ch.port2.postMessage(0);
    }),
  );

const f = makeContext({ ui: { open: false, view: 'chat' } });
f.stores.$rooms.set([room()]);
const widget = document.createElement('charla-widget') as CharlaWidget;
widget.context = f.context;
document.body.append(widget);

const launcherShown = (async () => {
  await widget.updateComplete;
  const launcher = widget.shadowRoot!.querySelector('[part=launcher]')!;
  if (launcher.getBoundingClientRect().width === 0) throw new Error('launcher has no box');
  return afterPaint();
})();

function list() {
  const l = widget.shadowRoot!.querySelector('charla-chat')?.shadowRoot?.querySelector('charla-message-list');
  return {
    rows: l?.shadowRoot?.querySelectorAll('charla-message').length ?? 0,
    scroller: l?.shadowRoot?.querySelector<HTMLElement>('.scroller') ?? null,
  };
}

function history(n: number, start = Date.UTC(2026, 0, 1, 9)): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      msg({
        id: `h${i}`,
        seq: i + 1,
        timestamp: start + i * 7 * 60_000,
        senderId: i % 3 === 0 ? 'me' : 'bot1',
        by: i % 3 === 0 ? 'user' : 'bot',
        status: 'DELIVERED_USER',
        text:
          i % 4 === 0
            ? `Mensaje ${i}: un texto algo más largo, que ocupa dos líneas en una burbuja normal del chat`
            : `Mensaje ${i}`,
      }),
    );
  }
  return out;
}

const bench = {
  /** rAF-to-rAF intervals of an idle page: how loaded the machine is while the bench runs. */
  async idleFrames(frames: number): Promise<number[]> {
    const out: number[] = [];
    let last = await frame();
    for (let i = 0; i < frames; i++) {
      const t = await frame();
      out.push(t - last);
      last = t;
    }
    return out;
  },
  /** When the launcher was first painted (performance.now()). */
  launcher(): Promise<number> {
    return launcherShown;
  },
  /** Opens the room holding n messages; ms to the first frame with its newest messages painted. */
  async openRoom(n: number): Promise<{ ms: number; rows: number; frames: number }> {
    f.stores.$currentMessages.set(history(n));
    const t0 = performance.now();
    f.context.actions.open();
    for (let frames = 1; ; frames++) {
      const painted = await afterPaint();
      const { rows } = list();
      if (rows > 0) return { ms: painted - t0, rows, frames };
      if (painted - t0 > 5000) throw new Error('room did not render');
    }
  },
  /** Scrolls up by `step` px per frame for `frames` frames; returns rAF-to-rAF intervals and per-frame work. */
  async scroll(
    frames: number,
    step: number,
  ): Promise<{ intervals: number[]; work: number[]; maxRows: number }> {
    const { scroller } = list();
    if (!scroller) throw new Error('no scroller');
    const intervals: number[] = [];
    const work: number[] = [];
    let maxRows = 0;
    let last = await frame();
    for (let i = 0; i < frames; i++) {
      const start = await new Promise<number>((r) =>
        requestAnimationFrame((t) => {
          scroller.scrollTop -= step;
          r(t);
        }),
      );
      intervals.push(start - last);
      last = start;
      const done = await new Promise<number>((r) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => r(performance.now());
        ch.port2.postMessage(0);
      });
      work.push(done - start);
      maxRows = Math.max(maxRows, list().rows);
    }
    return { intervals, work, maxRows };
  },
  /** n incoming messages, each in its own task, spread over `ms`. */
  async burst(n: number, ms: number): Promise<{ rows: number; total: number }> {
    const base = f.stores.$currentMessages.get().length;
    await new Promise<void>((resolve) => {
      let done = 0;
      for (let i = 0; i < n; i++) {
        setTimeout(
          () => {
            const m = msg({
              id: `b${i}`,
              text: `Ráfaga ${i}`,
              senderId: 'bot1',
              by: 'bot',
              senderNames: 'Bot',
              timestamp: Date.now(),
            });
            f.stores.$currentMessages.set([...f.stores.$currentMessages.get(), m]);
            if (++done === n) resolve();
          },
          (i * ms) / n,
        );
      }
    });
    await afterPaint();
    await afterPaint();
    return { rows: list().rows, total: f.stores.$currentMessages.get().length - base };
  },
};

(window as unknown as { __bench: typeof bench }).__bench = bench;
