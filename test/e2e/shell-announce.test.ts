/**
 * Journey: two visitors on the `group` widget (`/group-user.html?user=…`); Bob
 * writes to Ana while her room is not on screen (panel closed, then the home
 * menu). What a screen reader hears from Ana's widget: the widget's polite
 * status region says each arrival once, and a message in the room Ana has
 * open is said by the room's log alone, not twice (WCAG 4.1.3).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  closeAfterAll,
  groupWidgetOf,
  launchBrowser,
  openGroupUsers,
  startService,
  uniqueUser,
  until,
  type Service,
} from './helpers.ts';

const users = { ana: uniqueUser('ana'), bob: uniqueUser('bob') };
type Who = keyof typeof users;
let service: Service;
let browser: Browser;
const pages = {} as Record<Who, Page>;
let roomId: string;

type Handle = {
  stores: { $connection: { get(): string } };
  openRoomWithUser(u: { id: string; names?: string }): Promise<{ id: string }>;
  sendMessage(m: Record<string, unknown>): Promise<unknown>;
  setCurrentRoom(id: string): void;
  showHomeMenu(): void;
  open(): void;
  close(): void;
};
/** Runs `fn` in the page with its widget instance. */
async function withWidget<T, A>(who: Who, fn: (w: Handle, arg: A) => T | Promise<T>, arg: A): Promise<T> {
  const widget = await groupWidgetOf<Handle>(pages[who]);
  return widget.evaluate(fn as (w: Handle, arg: unknown) => T | Promise<T>, arg);
}

/**
 * From now on, what goes into Ana's live regions while they are in the page: the widget's
 * status region and, through every shadow root, the message list's log.
 */
async function listen(): Promise<void> {
  await pages.ana.evaluate(() => {
    const w = window as unknown as { heard: { role: string; text: string }[]; watched?: Set<Element> };
    w.heard = [];
    w.watched ??= new Set();
    const regions = (root: Document | ShadowRoot): Element[] => [
      ...root.querySelectorAll('[role=status], [role=log]'),
      ...[...root.querySelectorAll('*')].flatMap((e) => (e.shadowRoot ? regions(e.shadowRoot) : [])),
    ];
    const widget = document.querySelector('charla-widget')!.shadowRoot!;
    const watch = () => {
      for (const region of regions(widget)) {
        if (w.watched!.has(region)) continue;
        w.watched!.add(region);
        new MutationObserver((records) => {
          if (!region.isConnected) return;
          for (const r of records)
            for (const n of r.addedNodes)
              if (n.textContent?.trim())
                w.heard.push({ role: region.getAttribute('role')!, text: n.textContent.trim() });
        }).observe(region, { childList: true, subtree: true });
      }
    };
    watch();
    // Views come and go (the chat's log with them): watch the new ones too.
    new MutationObserver(watch).observe(widget, { childList: true, subtree: true });
  });
}
/**
 * What Ana's live regions say once Bob has written `texts` (together), from the first
 * announcement until the arrivals have settled (so a second, doubled one would be there).
 */
async function heardAfter(...texts: string[]): Promise<{ role: string; text: string }[]> {
  await listen();
  await Promise.all(
    texts.map((text) =>
      withWidget('bob', (w, [room, t]) => w.sendMessage({ type: 'TEXT', roomId: room, text: t }), [
        roomId,
        text,
      ] as const),
    ),
  );
  const heard = () =>
    pages.ana.evaluate(() => (window as unknown as { heard: { role: string; text: string }[] }).heard);
  await until(`an announcement of ${texts.join(', ')}`, async () =>
    (await heard()).length ? true : undefined,
  );
  await new Promise((r) => setTimeout(r, 2000));
  return heard();
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  const opened = await openGroupUsers(browser, service, users);
  for (const who of Object.keys(users) as Who[]) pages[who] = opened[who].page;
  roomId = (await withWidget('ana', (w, id) => w.openRoomWithUser({ id, names: 'Bob Ruiz' }), users.bob)).id;
}, 120_000);

closeAfterAll(() => ({ browser, service }));

describe('journey: messages that arrive where the visitor is not looking are announced once', () => {
  it('panel closed: the widget’s status region says who wrote, once; several together as one', async () => {
    await withWidget('ana', (w) => w.close(), null);
    expect(await heardAfter('Hola, Ana')).toEqual([
      { role: 'status', text: `Nuevo mensaje de ${users.bob}` },
    ]);
    expect(await heardAfter('uno', 'dos', 'tres')).toEqual([{ role: 'status', text: '3 mensajes nuevos' }]);
  });

  it('the room open: its log says the message, the widget’s region does not; on the home menu the region does', async () => {
    await withWidget(
      'ana',
      (w, id) => {
        w.open();
        w.setCurrentRoom(id);
      },
      roomId,
    );
    expect(await heardAfter('¿Me lees?')).toEqual([
      { role: 'log', text: `Nuevo mensaje de ${users.bob}: ¿Me lees?` },
    ]);
    await withWidget('ana', (w) => w.showHomeMenu(), null);
    expect(await heardAfter('Sigo aquí')).toEqual([
      { role: 'status', text: `Nuevo mensaje de ${users.bob}` },
    ]);
  });
});
