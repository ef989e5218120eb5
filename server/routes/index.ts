/**
 * Every HTTP operation of the interface, one file per section, validated with
 * TypeBox (server/http/validation.ts, installed at the root by app.ts), documented at /v1/openapi.json (registered
 * at the root by app.ts so the widget API is in it too); and the
 * campaign scheduler's lifetime (onReady -> start, onClose -> stop).
 */
import type { FastifyInstance } from 'fastify';
import { mediaRoutes } from '../media.ts';
import { CampaignScheduler } from '../scheduler.ts';
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
    const scheduler = new CampaignScheduler(app.charla, config.schedulerIntervalMs, {}, (err) =>
      app.log.error({ err }, 'campaign scheduler tick failed'),
    );
    app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => scheduler.stop());
  }
}
