/**
 * A failed connection's error is not left standing once the widget is
 * connected: the chat showed "Sin conexión con el servicio." under a header
 * saying "En línea" until the visitor dismissed it. Other errors stay.
 */
import { describe, expect, it } from 'vitest';
import { liveWidgets } from './helpers/widgets.ts';

const live = liveWidgets();

describe('the error of a failed connection', () => {
  it('goes once the widget connects; an error of something else stays', async () => {
    let down = true;
    const flaky: typeof fetch = (input, init) =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init);
    const w = live.widget({ userId: `flaky-${Date.now()}`, fetch: flaky });
    const errors = w.core.stores.w.$lastError;
    await expect(w.connect()).rejects.toMatchObject({ key: 'NETWORK_ERROR' });
    expect(errors.get()).toMatchObject({ transient: true });
    expect(w.core.stores.w.$connection.get()).toBe('error');

    down = false;
    await w.connect();
    expect(w.core.stores.w.$connection.get()).toBe('connected');
    expect(errors.get()).toBeNull();

    // An error of another operation is the visitor's to dismiss: a reconnect leaves it.
    await expect(w.sendMessage({ roomId: 'not-my-room', type: 'TEXT', text: 'hola' })).rejects.toMatchObject({
      key: 'NOT_A_MEMBER',
    });
    const refused = errors.get();
    expect(refused).toMatchObject({ key: 'NOT_A_MEMBER' });
    w.disconnect();
    await w.connect();
    expect(w.core.stores.w.$connection.get()).toBe('connected');
    expect(errors.get()).toBe(refused);
  });
});
