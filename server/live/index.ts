/**
 * The live side: messaging (app.charla.messaging), widget sessions and the
 * widget API, the socket gateway, and the bot's flow runner.
 */
import type { FastifyInstance } from 'fastify';
import { MEDIA_URL_TTL_DEFAULT } from '../../types/index.ts';
import { Hub, type LiveServer } from './hub.ts';
import { Rooms } from './rooms.ts';
import { createMessaging, type LiveMessaging } from './messaging.ts';
import { Sessions } from './session.ts';
import { widgetRoutes } from './widget-routes.ts';
import { closeLive, gateways, startGateway } from './gateway.ts';
import { createFlowRunner, FLOWS_DIR, loadFlowFiles, type FlowRunner } from './flows.ts';
import { ensureDemoAssets } from './assets.ts';
import { ORPHAN_CHUNK_AGE_MS, sweepOrphanChunks } from '../media-store.ts';
import { sweepUnsentUploads, UNSENT_UPLOAD_AGE_MS } from './media-rooms.ts';
import { CHECKPOINT_EVERY_MS, diskFree, reclaimer } from '../store/reclaim.ts';

export interface Live {
  hub: Hub;
  messaging: LiveMessaging;
  sessions: Sessions;
  flows: FlowRunner;
  /** The socket.io server (set once the plugin is registered). */
  io: LiveServer;
}

const parts = new WeakMap<object, Live>();

/** The live side's parts of an app, for tests and benchmarks (e.g. `liveOf(app).io`). */
export function liveOf(app: FastifyInstance): Live {
  const live = parts.get(app.charla);
  if (!live) throw new Error('the live plugin is not registered on this app');
  return live;
}

export { gateways };

export async function livePlugin(app: FastifyInstance): Promise<void> {
  const { db, config } = app.charla;
  const hub = new Hub();
  const rooms = new Rooms(db, hub);
  // Any host: an upload is signed for the host its request named (baseUrlFor(request)), which the
  // service cannot list here. The host grants nothing: mediaSentIn records only a key of the
  // room's company's media and, for a person's message, one the sender could see.
  const messaging = createMessaging(db, hub, rooms, (url) => app.charla.signer.mediaKeyOf(url, [url]));
  app.charla.messaging = messaging;

  const sessions = new Sessions(db, config.signingKeys);
  let assetKeys: Record<string, string> = {};
  const flows = createFlowRunner({
    db,
    messaging,
    files: loadFlowFiles(FLOWS_DIR, app.log),
    assets: () =>
      Object.fromEntries(
        Object.entries(assetKeys).map(([name, key]) => [
          name,
          app.charla.signer.sign(key, MEDIA_URL_TTL_DEFAULT, app.charla.baseUrlFor()),
        ]),
      ),
    log: app.log,
  });
  // Pieces of uploads cut short (server/media-store.ts). At the start of the only process on an
  // embedded store no upload is running, so all of them; elsewhere, and every hour, only old ones.
  const sweep = (olderThanMs: number) =>
    sweepOrphanChunks(db, olderThanMs).then(
      (n) => n > 0 && app.log.info({ pieces: n }, 'removed the pieces of unfinished uploads'),
    );
  // Uploads no message carries, a day on (the visitor cancelled, or left): at the start, then hourly.
  const sweepUnsent = () =>
    sweepUnsentUploads(db, UNSENT_UPLOAD_AGE_MS).then(
      (n) => void (n > 0 && app.log.info({ uploads: n }, 'removed uploads no message carries')),
      (err: unknown) => app.log.warn({ err }, 'could not remove the uploads no message carries'),
    );
  // The embedded store has no autovacuum to keep the planner's statistics: without them the sweep
  // of unsent uploads read every message for each upload (134 ms each, and the start timed out on
  // a store of 20,000 messages and 1,000 uploads). They are taken at the start and every hour,
  // with the room of deleted and rewritten rows given back (server/store/reclaim.ts).
  const reclaim = reclaimer(
    db,
    app.log,
    config.databaseUrl ? {} : { dataDir: config.dataDir, freeBytes: config.diskFree ?? diskFree },
  );
  await reclaim.analyze();
  // The first pass over a store never given its room back reads all of it: not in the start's way.
  const firstReclaim = setTimeout(() => void reclaim.all(), 60_000);
  firstReclaim.unref();
  const checkpoints = setInterval(() => void reclaim.checkpoint(), CHECKPOINT_EVERY_MS);
  checkpoints.unref();
  await sweep(db.kind === 'pglite' ? 0 : ORPHAN_CHUNK_AGE_MS);
  await sweepUnsent();
  const sweeper = setInterval(() => {
    // The store's room is given back after the sweeps, so what they removed is in it.
    void Promise.all([
      sweep(ORPHAN_CHUNK_AGE_MS).catch((err: unknown) =>
        app.log.warn({ err }, 'could not remove the pieces of unfinished uploads'),
      ),
      sweepUnsent(),
    ]).then(() => reclaim.all());
  }, ORPHAN_CHUNK_AGE_MS);
  sweeper.unref();
  assetKeys = await ensureDemoAssets(db, config.companyId);

  await app.register(async (scope) => widgetRoutes(scope, { hub, sessions, messaging, flows, reclaim }));

  const io = startGateway(app, { hub, sessions, messaging });
  gateways.add(io);
  // The one place fan-out across processes is set up (REDIS_URL): set an
  // adapter on `io` here, before any socket connects. Everything the live side
  // does goes through socket.io rooms, so nothing else changes.
  if (config.redisUrl) {
    const { attachRedisAdapter } = await import('../scale/redis-adapter.ts');
    attachRedisAdapter(io, config.redisUrl, app.log);
  }
  app.addHook('preClose', async () => {
    // Close sockets before the HTTP server waits for its connections.
    await closeLive(io);
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    clearTimeout(firstReclaim);
    clearInterval(checkpoints);
    gateways.delete(io);
    // The turn running ends; the queued ones are left (a flood's could keep a stop going for minutes).
    flows.stop();
    await flows.idle().catch(() => {});
    await new Promise<void>((resolve) => io.close(() => resolve()));
  });

  parts.set(app.charla, { hub, messaging, sessions, flows, io });
}
