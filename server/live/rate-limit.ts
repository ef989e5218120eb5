/**
 * The live gateway's rate limit: a token bucket per user (company and user
 * id) in this process, shared by every socket of that user, so reconnecting
 * does not hand out a fresh burst. Every client event takes a token, whatever
 * its name. With several processes each keeps its own buckets: a user whose
 * sockets land on N processes gets N times the rate (the balancer is usually
 * sticky, so it is one).
 *
 * An event over the limit starts a hold: every event until the hold ends is
 * refused and pushes the hold on, so a client that keeps writing after it was
 * told to wait gets nothing until it pauses. The hold is also what keeps a
 * pipelined outbox in order: the messages in flight behind the first refused
 * one are all refused (none slips through on a token that refilled
 * meanwhile), and the client sends them again, oldest first, after the wait
 * its acknowledgements named.
 */

/** Shortest hold after a refusal (ms): long enough to cover a pipeline still arriving on a busy process. */
export const HOLD_MS = 1_000;
/** Refused events in a row, in bursts, after which the socket is closed (a client that ignores the wait). */
export const FLOOD_BURSTS = 10;

export class Bucket {
  #tokens: number;
  #at: number;
  #heldUntil = 0;
  /** Sockets using this bucket now. */
  users = 0;

  constructor(
    readonly rate: number,
    readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes a token: 0 when the event may go, else how many ms to wait before sending again. */
  take(now: number): number {
    this.#refill(now);
    if (now >= this.#heldUntil && this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    this.#heldUntil = Math.max(this.#heldUntil, now + Math.max(HOLD_MS, 1000 / this.rate));
    return Math.ceil(this.#heldUntil - now);
  }

  /** When a bucket nobody uses is as good as a new one (full, not held). */
  idleAfter(now: number): number {
    this.#refill(now);
    const full = ((this.burst - this.#tokens) * 1000) / this.rate;
    return Math.max(0, Math.ceil(Math.max(full, this.#heldUntil - now)));
  }

  #refill(now: number): void {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.rate) / 1000);
    this.#at = now;
  }
}

export class RateLimits {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly rate: number,
    readonly burst: number,
  ) {}

  /** How many sockets of the user hold its bucket now (acquired, not yet released). */
  usersOf(companyId: string, userId: string): number {
    return this.#buckets.get(`${companyId}\n${userId}`)?.users ?? 0;
  }

  /** The bucket of a user, counted as used until release(). */
  acquire(companyId: string, userId: string): Bucket {
    const key = `${companyId}\n${userId}`;
    let bucket = this.#buckets.get(key);
    if (!bucket) this.#buckets.set(key, (bucket = new Bucket(this.rate, this.burst, Date.now())));
    bucket.users++;
    return bucket;
  }

  /** A socket ended: the bucket is kept until it would be full again, so a reconnect finds it. */
  release(companyId: string, userId: string, bucket: Bucket): void {
    bucket.users--;
    const key = `${companyId}\n${userId}`;
    const forget = () => {
      if (bucket.users === 0 && this.#buckets.get(key) === bucket) this.#buckets.delete(key);
    };
    const wait = bucket.users === 0 ? bucket.idleAfter(Date.now()) : -1;
    if (wait === 0) forget();
    else if (wait > 0) setTimeout(forget, wait).unref();
  }
}
