/**
 * How much a widget may upload (`POST /v1/widget/uploads`): per user (company and user id) at
 * most `files` files and `bytes` bytes an hour, refilled continuously (a token bucket each), and
 * per client address ten times that (many visitors may share one address behind a NAT; one
 * visitor making up user ids still meets it). Each process counts its own, as the socket rate
 * limit does. A file takes its count when it starts, refused or not, and its bytes once stored;
 * one that would take more bytes than are left (by its Content-Length) does not start.
 */

/** Client addresses get this many times a user's allowance. */
export const PER_ADDRESS = 10;
const HOUR_MS = 3_600_000;

class Allowance {
  files: number;
  bytes: number;
  at: number;
  constructor(
    readonly maxFiles: number,
    readonly maxBytes: number,
    now: number,
  ) {
    this.files = maxFiles;
    this.bytes = maxBytes;
    this.at = now;
  }
  refill(now: number): void {
    const share = (now - this.at) / HOUR_MS;
    this.files = Math.min(this.maxFiles, this.files + share * this.maxFiles);
    this.bytes = Math.min(this.maxBytes, this.bytes + share * this.maxBytes);
    this.at = now;
  }
  /** 0 when a file of `bytes` may start now, else the ms until it may. */
  waitFor(bytes: number): number {
    const files = this.files >= 1 ? 0 : ((1 - this.files) / this.maxFiles) * HOUR_MS;
    const need = Math.min(bytes, this.maxBytes);
    const room = this.bytes >= need ? 0 : ((need - this.bytes) / this.maxBytes) * HOUR_MS;
    return Math.ceil(Math.max(files, room));
  }
  full(): boolean {
    return this.files >= this.maxFiles && this.bytes >= this.maxBytes;
  }
}

export class UploadLimits {
  readonly #allowances = new Map<string, Allowance>();
  #sweptAt = 0;

  constructor(
    readonly files: number,
    readonly bytes: number,
  ) {}

  #get(key: string, scale: number, now: number): Allowance {
    let a = this.#allowances.get(key);
    if (!a) this.#allowances.set(key, (a = new Allowance(this.files * scale, this.bytes * scale, now)));
    a.refill(now);
    return a;
  }

  /**
   * A file of about `bytes` (its request's Content-Length) from this user and address: 0 when it
   * may start (its count is taken), else the ms to wait (nothing taken).
   */
  start(companyId: string, userId: string, address: string, bytes: number, now = Date.now()): number {
    this.#sweep(now);
    const user = this.#get(`u\n${companyId}\n${userId}`, 1, now);
    const place = this.#get(`a\n${address}`, PER_ADDRESS, now);
    const wait = Math.max(user.waitFor(bytes), place.waitFor(bytes));
    if (wait > 0) return wait;
    user.files -= 1;
    place.files -= 1;
    return 0;
  }

  /** A file of `bytes` was stored for this user and address. */
  stored(companyId: string, userId: string, address: string, bytes: number, now = Date.now()): void {
    this.#get(`u\n${companyId}\n${userId}`, 1, now).bytes -= bytes;
    this.#get(`a\n${address}`, PER_ADDRESS, now).bytes -= bytes;
  }

  /** Forgets, now and then, the allowances that are whole again (as good as new ones). */
  #sweep(now: number): void {
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [key, a] of this.#allowances) {
      a.refill(now);
      if (a.full()) this.#allowances.delete(key);
    }
  }
}
