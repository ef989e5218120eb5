/** Shared helpers for the widget UI's Chromium tests. */
import { cdp, page } from 'vitest/browser';
import '../../src/define.ts';
import type { CharlaWidget } from '../../src/components/widget/widget.ts';
import { deepActiveElement } from '../../src/components/shared/focus.ts';
import type { Message } from '../../types/index.ts';
import { makeContext, msg, room } from '../unit/components/fixture.ts';

export { makeContext, msg, room };

export const nextFrame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

/** The element holding focus, through shadow roots (the widget's own helper). */
export const deepActive = (): Element | null => deepActiveElement(document);

/** axe's WCAG 2.2 AA violations on the page, one line each: none is []. */
export async function axeViolations(): Promise<string[]> {
  // Loaded by the tests that ask for it only: axe-core is large.
  const { default: axe } = await import('axe-core');
  const result = await axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    resultTypes: ['violations'],
  });
  return result.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(' | ')})`,
  );
}

/** Waits until a condition holds (polling each frame), failing after a while. */
export async function waitFor<T>(
  check: () => T | null | undefined | false,
  what = 'condition',
  timeout = 5000,
): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (performance.now() - start > timeout) throw new Error(`timed out waiting for ${what}`);
    await nextFrame();
  }
}

/** N text messages over several days, alternating senders. */
export function manyMessages(n: number, start = Date.UTC(2026, 0, 1, 9)): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      msg({
        id: `h${i}`,
        seq: i + 1,
        timestamp: start + i * 60_000 * 7,
        senderId: i % 3 === 0 ? 'me' : 'bot1',
        by: i % 3 === 0 ? 'user' : 'bot',
        text:
          i % 5 === 0
            ? `Mensaje número ${i} con un texto algo más largo para ocupar dos líneas en la burbuja del chat`
            : `Mensaje ${i}`,
      }),
    );
  }
  return out;
}

export async function mountWidget(f = makeContext()): Promise<CharlaWidget> {
  if (f.stores.$rooms.get().length === 0) f.stores.$rooms.set([room()]);
  const el = document.createElement('charla-widget') as CharlaWidget;
  el.context = f.context;
  document.body.append(el);
  await el.updateComplete;
  await nextFrame();
  await animationsDone(el);
  return el;
}

/** Walks nested shadow roots: widget > chat > message list. */
export function deep(el: Element, ...selectors: string[]): Element | null {
  let node: Element | null = el;
  for (const s of selectors) {
    const root: ParentNode | null = node?.shadowRoot ?? node;
    node = root?.querySelector(s) ?? null;
    if (!node) return null;
  }
  return node;
}

export function listOf(widget: Element) {
  const list = deep(widget, 'charla-chat', 'charla-message-list');
  const scroller = list?.shadowRoot?.querySelector('.scroller') as HTMLElement | null;
  return { list, scroller, rows: () => [...(list?.shadowRoot?.querySelectorAll('charla-message') ?? [])] };
}

/** Lets the panel's opening animation finish (measurements and contrast need the final frame). */
export async function animationsDone(widget: Element): Promise<void> {
  const roots: (Document | ShadowRoot)[] = [];
  const walk = (root: ParentNode) => {
    for (const el of root.querySelectorAll('*'))
      if (el.shadowRoot) (roots.push(el.shadowRoot), walk(el.shadowRoot));
  };
  if (widget.shadowRoot) roots.push(widget.shadowRoot);
  walk(widget.shadowRoot ?? widget);
  await Promise.all(
    roots.flatMap((r) =>
      r
        .getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

/** A node of Chromium's accessibility tree (the fields of CDP's AXNode the tests read). */
export interface AXNode {
  nodeId: string;
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  childIds?: string[];
  parentId?: string;
}

/**
 * Chromium's accessibility tree of the frame the tests run in (the tab's own is the runner's),
 * ignored nodes included. Fails when no frame of the tab is at this document's address.
 */
export async function axNodes(): Promise<AXNode[]> {
  type Frames = { frame: { id: string; url: string; urlFragment?: string }; childFrames?: Frames[] };
  const session = cdp();
  const { frameTree } = (await session.send('Page.getFrameTree')) as { frameTree: Frames };
  const all = (t: Frames): Frames['frame'][] => [t.frame, ...(t.childFrames ?? []).flatMap(all)];
  // CDP gives a frame's address without its fragment, and the fragment apart.
  const frame = all(frameTree).find((f) => f.url + (f.urlFragment ?? '') === location.href);
  if (!frame) throw new Error(`no frame at ${location.href} in Chromium's frame tree`);
  const { nodes } = (await session.send('Accessibility.getFullAXTree', { frameId: frame.id })) as {
    nodes: AXNode[];
  };
  return nodes;
}

/** The element's characters in stored order, each with where it is drawn (zero-width ones left out). */
export function drawnCharacters(el: Element): { c: string; x: number; y: number }[] {
  const chars: { c: string; x: number; y: number }[] = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.textContent!.length; i++) {
      const range = document.createRange();
      range.setStart(n, i);
      range.setEnd(n, i + 1);
      const box = range.getBoundingClientRect();
      if (box.width > 0) chars.push({ c: n.textContent![i]!, x: box.left, y: Math.round(box.top) });
    }
  }
  return chars;
}

/** The widget open on a chat of 30 messages in a viewport of this size, and its parts, once laid out. */
export async function openChatAt(width: number, height: number) {
  await page.viewport(width, height);
  const f = makeContext({ ui: { open: true } });
  f.stores.$currentMessages.set(manyMessages(30));
  const widget = await mountWidget(f);
  const panel = widget.shadowRoot!.querySelector<HTMLElement>('[part=panel]')!;
  const chat = deep(widget, 'charla-chat')!;
  const header = await waitFor(() => chat.shadowRoot!.querySelector<HTMLElement>('.header'), 'header');
  const composer = deep(widget, 'charla-chat', 'charla-composer')!;
  const { scroller } = listOf(widget);
  for (let i = 0; i < 3; i++) await nextFrame();
  return { widget, panel, header, composer, scroller: scroller! };
}
