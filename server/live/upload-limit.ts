/**
 * How much a widget may upload (`POST /v1/widget/uploads`): per user (company and user id) at
 * most `files` files and `bytes` bytes an hour, refilled continuously (a token bucket each), and
 * per client address ten times that (many visitors may share one address behind a NAT; one
 * visitor making up user ids still meets it; an IPv6 address counts by its /64, which one
 * subscriber usually holds whole). Each process counts its own, as the socket rate limit does.
 * A file that would take more than is left does not start. One that starts takes its count,
 * whatever becomes of it, and holds the bytes its request announces (Content-Length; without
 * one, the largest upload) while it arrives, so uploads side by side cannot pass the allowance
 * together; once it is stored, what it did not use is given back, and all of it when it was not.
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
   * A file of at most `bytes` from this user and address: 0 when it may start (its count and
   * `bytes` are taken), else the ms to wait (nothing taken). settle() gives back what it did not use.
   */
  start(companyId: string, userId: string, address: string, bytes: number, now = Date.now()): number {
    this.#sweep(now);
    const both = this.#both(companyId, userId, address, now);
    const wait = Math.max(...both.map((a) => a.waitFor(bytes)));
    if (wait > 0) return wait;
    for (const a of both) {
      a.files -= 1;
      a.bytes -= bytes;
    }
    return 0;
  }

  /** The file started with `held` bytes ended having stored `used` (0: nothing stored). */
  settle(companyId: string, userId: string, address: string, held: number, used: number): void {
    for (const a of this.#both(companyId, userId, address, Date.now())) a.bytes += Math.max(0, held - used);
  }

  #both(companyId: string, userId: string, address: string, now: number): Allowance[] {
    return [
      this.#get(`u\n${companyId}\n${userId}`, 1, now),
      this.#get(`a\n${prefixOf(address)}`, PER_ADDRESS, now),
    ];
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

/** An address as counted: IPv4 whole, IPv6 by its first 64 bits (an IPv4-mapped one as IPv4). */
export function prefixOf(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
