/**
 * What the socket load runs share (bench/socket-load.ts, one process, and
 * bench/socket-load-cluster.ts, several): the traffic settings, read from
 * budgets.json `socketLoad` and the environment, and the small helpers of the
 * driving process.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface SocketLoadBudgets {
  clients?: number;
  durationS?: number;
  intervalMs?: number;
  p99MaxMs?: number;
  lostMax?: number;
  duplicatedMax?: number;
}

/** budgets.json `socketLoad`: the traffic both runs drive, and the limits they are held to. */
export const SOCKET_LOAD: SocketLoadBudgets =
  (JSON.parse(readFileSync(join(benchDir, 'budgets.json'), 'utf8')) as { socketLoad?: SocketLoadBudgets })
    .socketLoad ?? {};

/** Widget connections, an even number (rooms of two). SOCKET_LOAD_CLIENTS overrides. */
export const CLIENTS = Math.max(
  2,
  Math.floor(Number(process.env['SOCKET_LOAD_CLIENTS'] ?? SOCKET_LOAD.clients ?? 2000) / 2) * 2,
);
export const DURATION_S = Number(process.env['SOCKET_LOAD_DURATION_S'] ?? SOCKET_LOAD.durationS ?? 30);
export const INTERVAL_MS = Number(process.env['SOCKET_LOAD_INTERVAL_MS'] ?? SOCKET_LOAD.intervalMs ?? 10_000);
/** How long to wait for late deliveries before counting a message lost. */
export const DRAIN_MS = Number(process.env['SOCKET_LOAD_DRAIN_MS'] ?? 5000);

/** The p-th percentile of sorted values (nearest rank); NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

/**
 * A request/answer helper over a service child's IPC channel, typed by the
 * messages each side sends: `ask(child, message, 'ready')` sends (when given)
 * and resolves with the child's first message of that type; rejects if the
 * child exits first.
 */
export function asker<From extends { type: string }, To>() {
  return <T extends From['type']>(child: ChildProcess, msg: To | null, type: T) =>
    new Promise<Extract<From, { type: T }>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`service exited (${code})`));
      const onMessage = (m: From) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as Extract<From, { type: T }>);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (msg) child.send(msg as object);
    });
}

/** A widget session the service child made for the load (its token and its room of two). */
export interface LoadUser {
  token: string;
  roomId: string;
}

type Ack = { ok: true; data: { id: string } } | { ok: false; error: unknown };
type LoadSocket = import('socket.io-client').Socket;

/** Sockets opened at once while connecting every client. */
const CONNECT_CONCURRENCY = 50;

/**
 * The load's widget clients: user 2k and 2k+1 share a room; each sends its
 * partner a message every INTERVAL_MS. Counts what both runs report: sends,
 * acknowledgements (and their latency), deliveries to the partner (and their
 * latency, while `measuring`), duplicates, failed acks and disconnects.
 */
export class LoadClients {
  readonly sent = new Map<string, { at: number; to: number }>();
  readonly receivedCount = new Map<string, number>();
  readonly deliveryMs: number[] = [];
  readonly ackMs: number[] = [];
  readonly sockets: LoadSocket[];
  duplicated = 0;
  ackFailures = 0;
  disconnects = 0;
  acked = 0;
  measuring = false;

  constructor(readonly users: LoadUser[]) {
    this.sockets = new Array<LoadSocket>(users.length);
  }

  /** Connects every client, user `index` to the service at `urlOf(index)`; resolves when all are in. */
  async connect(urlOf: (index: number) => string): Promise<void> {
    const { io } = await import('socket.io-client');
    const { SOCKET_PATH } = await import('../../types/routes.ts');
    for (let start = 0; start < this.users.length; start += CONNECT_CONCURRENCY) {
      await Promise.all(
        this.users.slice(start, start + CONNECT_CONCURRENCY).map(
          (u, k) =>
            new Promise<void>((resolve, reject) => {
              const index = start + k;
              const s = io(urlOf(index), {
                path: SOCKET_PATH,
                transports: ['websocket'],
                auth: { token: u.token },
                reconnection: false,
                forceNew: true,
              });
              this.sockets[index] = s;
              s.on('message:new', (m: { id: string }) => {
                const info = this.sent.get(m.id);
                if (!info || info.to !== index) return; // the sender's own copy
                const count = (this.receivedCount.get(m.id) ?? 0) + 1;
                this.receivedCount.set(m.id, count);
                if (count > 1) this.duplicated++;
                else if (this.measuring) this.deliveryMs.push(performance.now() - info.at);
              });
              s.on('disconnect', () => {
                this.disconnects++;
              });
              s.once('connect', () => resolve());
              s.once('connect_error', (e) => reject(e));
            }),
        ),
      );
    }
  }

  /** One message from client i to its room partner, with an acknowledgement. */
  sendOne(i: number): void {
    const s = this.sockets[i];
    const u = this.users[i];
    if (!s || !u) return;
    const id = randomUUID();
    const at = performance.now();
    this.sent.set(id, { at, to: i % 2 === 0 ? i + 1 : i - 1 });
    s.timeout(10_000).emit(
      'message:send',
      { id, roomId: u.roomId, type: 'TEXT', text: `hello ${i} ${at.toFixed(0)}` },
      (err: Error | null, res: Ack) => {
        if (err || !res.ok) {
          this.ackFailures++;
          this.sent.delete(id);
          return;
        }
        this.acked++;
        this.ackMs.push(performance.now() - at);
      },
    );
  }

  /**
   * The traffic: every client starts at a random point of the first interval,
   * then sends every INTERVAL_MS, for `durationS` seconds (deliveries measured
   * from the start). Resolves with the seconds it ran; `measuring` stays on
   * for the caller's drain.
   */
  async traffic(durationS: number): Promise<number> {
    const timers: NodeJS.Timeout[] = [];
    this.measuring = true;
    const started = performance.now();
    for (let i = 0; i < this.users.length; i++) {
      timers.push(
        setTimeout(() => {
          this.sendOne(i);
          timers.push(setInterval(() => this.sendOne(i), INTERVAL_MS));
        }, Math.random() * INTERVAL_MS),
      );
    }
    await new Promise((r) => setTimeout(r, durationS * 1000));
    for (const t of timers) clearTimeout(t);
    return (performance.now() - started) / 1000;
  }

  /** Messages acknowledged as sent that the partner never received. */
  lost(): number {
    let lost = 0;
    for (const id of this.sent.keys()) if (!this.receivedCount.has(id)) lost++;
    return lost;
  }

  close(): void {
    for (const s of this.sockets) s?.close();
  }
}
