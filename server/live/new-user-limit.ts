/**
 * New users per client address (`POST /v1/widget/session` under a user id the company does not
 * know yet, or with none; and the made-up ids a session brings into rooms: openRoomWithUser,
 * addMember(s), joinRoom for another, which store a user too): at most `perHour` an hour, refilled continuously (a token bucket
 * per address, an IPv6 address by its /64 as the upload allowance counts it). A script making
 * up users opened about 50 sessions a second from one address, each a user, a bot room and its
 * greeting stored, with no end. Visitors coming back (a known user id) are never held here.
 * Each process counts its own, as the other allowances do.
 */
import { prefixOf } from './upload-limit.ts';

const HOUR_MS = 3_600_000;

export class NewUserLimits {
  readonly #left = new Map<string, { tokens: number; at: number }>();
  #sweptAt = 0;

  constructor(readonly perHour: number) {}

  /** 0 when `count` more new users may come from `address` now (they are counted), else the ms to wait. */
  take(address: string, now = Date.now(), count = 1): number {
    this.#sweep(now);
    const key = prefixOf(address);
    const b = this.#refilled(key, now);
    const need = Math.min(count, this.perHour);
    if (b.tokens < need) return Math.ceil(((need - b.tokens) / this.perHour) * HOUR_MS);
    b.tokens -= count;
    return 0;
  }

  #refilled(key: string, now: number): { tokens: number; at: number } {
    let b = this.#left.get(key);
    if (!b) this.#left.set(key, (b = { tokens: this.perHour, at: now }));
    b.tokens = Math.min(this.perHour, b.tokens + ((now - b.at) / HOUR_MS) * this.perHour);
    b.at = now;
    return b;
  }

  /** Forgets, now and then, the addresses whose allowance is whole again. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [key] of this.#left)
      if (this.#refilled(key, now).tokens >= this.perHour) this.#left.delete(key);
  }
}
