/**
 * Shutting down (SIGTERM, a restart) never waits on live connections: every
 * socket.io connection is closed by the service, including one still joining
 * (its engine connection open, its session not yet checked), and none can
 * start once shutdown has begun.
 */
import { describe, expect, it } from 'vitest';
import { Manager } from 'socket.io-client';
import { SOCKET_PATH } from '../../types/index.ts';
import { startLive, within } from './helpers/live.ts';

describe('shutdown with live connections', () => {
  it('closes a connection that has not joined yet, so close() completes', async () => {
    const live = await startLive();
    // The engine connection is open; no namespace (no session) yet, as while the session is checked.
    const manager = new Manager(live.baseUrl, {
      path: SOCKET_PATH,
      transports: ['websocket'],
      reconnection: false,
      autoConnect: false,
    });
    await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
    const closedByServer = new Promise<string>((r) => manager.engine.once('close', (reason) => r(reason)));

    expect(await within(live.app.close(), 10_000)).toBe('done');
    expect(await within(closedByServer, 2_000)).toBe('done');
  });

  it('closes joined sockets and one mid-join at the same time', async () => {
    const live = await startLive();
    const { apiKey } = await live.createWidget();
    const joined = await live.connect((await live.session(apiKey, 'joined-user')).token);
    const { token } = await live.session(apiKey, 'joining-user');
    const manager = new Manager(live.baseUrl, {
      path: SOCKET_PATH,
      transports: ['websocket'],
      reconnection: false,
    });
    const joining = manager.socket('/', { auth: { token } });
    await new Promise<void>((r) => manager.engine.once('open', () => r()));
    // The namespace handshake (the session check) is in flight while shutdown starts.
    const closing = live.app.close();
    expect(await within(closing, 10_000)).toBe('done');
    expect(joined.connected).toBe(false);
    expect(joining.connected).toBe(false);
    expect(manager.engine.readyState).toBe('closed');
  });
});
