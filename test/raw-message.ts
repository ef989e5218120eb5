/**
 * A bot's message as the service sends it over the network (in `roomId`), with `extra` over it:
 * the tests of what the widget does with messages from the network, well-formed or not, start
 * from it (test/unit/widget/facade.test.ts, test/service/widget-sync-malformed.test.ts).
 */
export function rawMessage(id: string, roomId: string, extra: Record<string, unknown> = {}) {
  const at = '2026-11-23T10:00:00.000Z';
  return {
    id,
    roomId,
    senderId: 'bot-1',
    createdAt: at,
    timestamp: Date.parse(at),
    by: 'bot',
    status: 'DELIVERED',
    ...extra,
  };
}
