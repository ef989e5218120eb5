/**
 * The widget against a service whose catch-up refusal is an error body without `data` (the
 * widget takes any body with a status and a code): a stand-in socket.io server, the real widget
 * library. The refusal is reported (`error`, operation `sync`) and the catch-up asked again;
 * reading the body's wait once threw there, and the catch-up was never asked again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandIn, type StandIn } from './helpers/stand-in.ts';
import { waitFor } from './helpers/live.ts';

let service: StandIn;
let tries = 0;

beforeAll(async () => {
  service = await startStandIn();
  service.io.on('connection', (socket) => {
    socket.on('messages:sync', (_req: unknown, ack: (res: unknown) => void) => {
      tries++;
      if (tries === 1)
        return ack({
          ok: false,
          error: { status: 0, statusMessage: 'failed', error: { code: 'E0400', key: 'VALIDATION_ERROR' } },
        });
      ack({ ok: true, data: { rooms: [], messages: [] } });
    });
  });
});
afterAll(() => service.close());

describe('a catch-up refused with an error body without data', () => {
  it('is reported and asked again: the widget connects', async () => {
    const w = service.widget();
    const errors: string[] = [];
    w.on('error', (d) => errors.push(`${d.operation} ${d.error.key}`));
    void w.connect().catch(() => undefined);
    await waitFor(() => w.stores.$connection.get() === 'connected', 10_000, 'connected');
    expect(tries).toBe(2);
    expect(errors).toEqual(['sync VALIDATION_ERROR']);
  });
});
