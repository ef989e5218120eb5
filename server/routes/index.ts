/**
 * Every HTTP operation of the interface, one file per section, validated with
 * TypeBox (server/http/validation.ts, installed at the root by app.ts), documented at /v1/openapi.json (registered
 * at the root by app.ts so the widget API is in it too); and the
 * campaign scheduler's lifetime (onReady -> start, onClose -> stop).
 */
import type { FastifyInstance } from 'fastify';
import { mediaRoutes } from '../media.ts';
import { CampaignScheduler } from '../scheduler.ts';
import { storageUnavailable } from '../http/errors.ts';
import { campaignRoutes } from './campaigns.ts';
import { widgetRoutes } from './widgets.ts';
import { botMessageRoutes } from './bot-messages.ts';
import { roomRoutes } from './rooms.ts';
import { assetRoutes } from './assets.ts';

export async function httpRoutes(app: FastifyInstance): Promise<void> {
  await app.register(campaignRoutes);
  await app.register(widgetRoutes);
  await app.register(botMessageRoutes);
  await app.register(roomRoutes);
  await app.register(assetRoutes);
  await app.register(mediaRoutes);

  const { config } = app.charla;
  if (config.scheduler) {
    const outage = schedulerOutage(app, config.schedulerIntervalMs);
    const scheduler = new CampaignScheduler(app.charla, config.schedulerIntervalMs, {}, (err) => {
      if (storageUnavailable(err)) outage.failed(err);
      else app.log.error({ err }, 'campaign scheduler tick failed');
    });
    app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => {
      outage.stop();
      await scheduler.stop();
    });
  }
}

/** How often an outage that lasts is said again (ms). */
export const OUTAGE_REPEAT_MS = 30_000;

/**
 * The scheduler's ticks failing because the database is out of reach: said once as a warning when
 * it begins, again every OUTAGE_REPEAT_MS while it lasts, and once it is back (an info). Each tick
 * (every scheduler interval: 500 ms by default) logged an error with its whole stack for as long
 * as the outage lasted. The end is seen by asking the database once the failures stop coming.
 */
function schedulerOutage(app: FastifyInstance, intervalMs: number) {
  let since = 0;
  let saidAt = 0;
  let ticks = 0;
  let quiet: NodeJS.Timeout | undefined;
  let stopped = false;
  const seconds = (ms: number) => Math.round(ms / 1000);
  // No failure for a few ticks: is the database back?
  const check = () => {
    clearTimeout(quiet);
    quiet = setTimeout(
      () => {
        app.charla.db.query('SELECT 1').then(
          () => {
            if (stopped || since === 0) return;
            app.log.info(
              `campaign scheduler: the database answers again after ${seconds(Date.now() - since)} s (${ticks} ticks failed meanwhile)`,
            );
            since = 0;
          },
          (err: unknown) => {
            if (!stopped && storageUnavailable(err)) check();
          },
        );
      },
      Math.max(2_000, intervalMs * 4),
    );
    quiet.unref();
  };
  return {
    failed(err: unknown): void {
      const now = Date.now();
      const why = err instanceof Error ? err.message : String(err);
      if (since === 0) {
        since = saidAt = now;
        ticks = 1;
        app.log.warn(
          `campaign scheduler: the database is out of reach (${why}); its ticks fail until it is back (said again every ${seconds(OUTAGE_REPEAT_MS)} s while it lasts)`,
        );
      } else {
        ticks++;
        if (now - saidAt >= OUTAGE_REPEAT_MS) {
          saidAt = now;
          app.log.warn(
            `campaign scheduler: the database is still out of reach after ${seconds(now - since)} s (${ticks} ticks failed; ${why})`,
          );
        }
      }
      if (!stopped) check();
    },
    stop(): void {
      stopped = true;
      clearTimeout(quiet);
    },
  };
}
