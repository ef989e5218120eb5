/**
 * Chromium's accessibility tree: in a bot room each message is read with who wrote it ("Tú:",
 * the bot's name, else the room's), and a message that arrives is still announced once, by the
 * list's log, not again by its row.
 */
import { afterEach, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { type AXNode, axNodes, listOf, makeContext, mountWidget, msg, room, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

/** The text of the page as assistive technology reads it: every static text, in tree order. */
async function spokenText(): Promise<string> {
  const nodes = await axNodes();
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const out: string[] = [];
  const walk = (n: AXNode | undefined) => {
    if (!n) return;
    if (!n.ignored && n.role?.value === 'StaticText') out.push(n.name?.value ?? '');
    for (const id of n.childIds ?? []) walk(byId.get(id));
  };
  walk(nodes.find((n) => !n.parentId));
  return out.join('|');
}

it('reads each message with its sender, and announces an arrival once', async () => {
  await page.viewport(1280, 900);
  const f = makeContext({ ui: { open: true } });
  f.stores.$rooms.set([room({ id: 'r1', name: 'Panadería La Espiga' })]);
  f.stores.$currentMessages.set([
    msg({ text: '¿En qué te ayudo?', timestamp: Date.now() - 60_000 }),
    msg({ text: 'Quiero una hogaza', senderId: 'me', by: 'user', timestamp: Date.now() - 50_000 }),
  ]);
  const widget = await mountWidget(f);
  const { list, rows } = listOf(widget);
  await waitFor(() => rows().length === 2, 'two rows');
  const spoken = await spokenText();
  // The bot's message without a sender's name: the bot's, by its name (never the room's).
  expect(spoken).toContain('Asistente:|¿En qué te ayudo?');
  expect(spoken).toContain('Tú:|Quiero una hogaza');

  f.stores.$currentMessages.set([
    ...f.stores.$currentMessages.get(),
    msg({ text: 'Ahora mismo', senderNames: 'Charla', timestamp: Date.now() }),
  ]);
  await waitFor(() => rows().length === 3, 'the new row');
  const log = list!.shadowRoot!.querySelector('[role=log]')!;
  await waitFor(() => log.textContent!.includes('Ahora mismo'), 'the announcement');
  expect([...log.querySelectorAll('p')].map((p) => p.textContent)).toEqual([
    'Nuevo mensaje de Charla: Ahora mismo',
  ]);
  // The row itself is in no live region: its sender is read with it, not announced a second time.
  const row = rows()[2]!;
  expect(row.closest('[aria-live]')).toBeNull();
  expect(list!.closest('[aria-live]')).toBeNull();
  expect(await spokenText()).toContain('Charla:|Ahora mismo');
});
