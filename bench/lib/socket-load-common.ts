/**
 * What the socket load runs share (bench/socket-load.ts, one process, and
 * bench/socket-load-cluster.ts, several): the traffic settings, read from
 * budgets.json `socketLoad` and the environment, and the small helpers of the
 * driving process.
 */
import type { ChildProcess } from 'node:child_process';
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
