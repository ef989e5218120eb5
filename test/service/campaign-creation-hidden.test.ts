/**
 * A campaign of many recipients is written in pieces (a short transaction each, so that other
 * requests are answered in between) while it is hidden (CREATING), and shown by one last
 * statement. Nobody sees it half written: not the list, not cancel or update, not the scheduler;
 * a creation that fails on the way leaves nothing, and one cut off (its storage gone) is swept.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  DATABASE_URL,
  ON_POSTGRES,
  call,
  createBot,
  snapshot,
  startServer,
  uid,
  until,
  type Server,
} from './helpers/http.ts';
import { CampaignScheduler, claimDueCampaigns } from '../../server/scheduler.ts';
import { sweepAbandonedCampaigns } from '../../server/campaigns/service.ts';

/** The service the crash test kills. */
const CHILD = fileURLToPath(new URL('./campaign-crash-child.ts', import.meta.url));

const closing: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {});
});

const message = { type: 'text', text: 'Hola' };
const recipients = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const listOf = (server: Server, botId: string) =>
  call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01`);

/** POST /v1/campaigns, and whether its answer has come yet; status 0 when the connection broke. */
function startCreation(server: Server, body: Record<string, unknown>) {
  const state = { answered: false };
  const response = call(server, 'POST', '/v1/campaigns', { body })
    .catch((err: unknown) => ({ status: 0, body: null as any, text: String(err) }))
    .finally(() => {
      state.answered = true;
    });
  return { state, response };
}

/** The bot's campaign being written, once some of its recipients are stored; null if the creation answered first. */
async function hiddenOnceWriting(server: Server, botId: string, state: { answered: boolean }) {
  const seen = await until(
    async () => {
      if (state.answered) return { id: null, stored: 0 };
      const { rows } = await server.app.charla.db.query<{ id: string; stored: number }>(
        `SELECT c.id, (SELECT count(*)::int FROM campaign_recipients r WHERE r.campaign_id = c.id) AS stored
         FROM campaigns c WHERE c.bot_id = $1 AND c.status = 'CREATING'`,
        [botId],
      );
      const row = rows[0];
      return row && row.stored > 0 ? row : null;
    },
    60_000,
    20,
  );
  return seen.id === null ? null : seen;
}

async function rowsOf(server: Server, botId: string) {
  const db = server.app.charla.db;
  const campaigns = await db.query<{ id: string; status: string }>(
    'SELECT id, status FROM campaigns WHERE bot_id = $1',
    [botId],
  );
  const stored = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = ANY($1::text[])',
    [campaigns.rows.map((r) => r.id)],
  );
  return { campaigns: campaigns.rows, recipients: stored.rows[0]?.n ?? 0 };
}

describe('a campaign being created', () => {
  it('is hidden from the list, cancel, update and the scheduler while other requests are answered; then shown whole', async () => {
    const server = await startServer();
    closing.push(() => server.close());
    const botId = await createBot(server);
    const { state, response } = startCreation(server, {
      name: 'Big',
      elementName: 'big',
      botId,
      recipients: recipients(100_000, 'big'),
      message,
    });
    const hidden = await hiddenOnceWriting(server, botId, state);
    expect(hidden, 'some recipients stored while the campaign is not answered yet').not.toBeNull();
    const id = hidden!.id;

    // Each of these is answered while the creation still runs (its answer has not come).
    const answeredMeanwhile: Record<string, boolean> = {};
    const list = await listOf(server, botId);
    answeredMeanwhile['list'] = !state.answered;
    expect(list.status).toBe(200);
    expect(list.body.data.pagination.total).toBe(0);
    expect(list.body.data.results).toEqual([]);
    const pending = await call(
      server,
      'GET',
      `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01&status=PENDING`,
    );
    expect(pending.body.data.results).toEqual([]);
    const update = await call(server, 'PUT', `/v1/campaigns/${id}`, { body: { name: 'Renamed' } });
    answeredMeanwhile['update'] = !state.answered;
    expect(update.status).toBe(404);
    const cancel = await call(server, 'DELETE', `/v1/campaigns/${id}`);
    answeredMeanwhile['cancel'] = !state.answered;
    expect(cancel.status).toBe(404);
    const claimed = await claimDueCampaigns(server.app.charla, { instanceId: 'peer', staleAfterMs: 30_000 });
    answeredMeanwhile['claim'] = !state.answered;
    expect(claimed).not.toContain(id);
    // A sweep (this process's, or a peer's on shared PostgreSQL) leaves a creation in progress alone.
    const peer = ON_POSTGRES ? await startServer({}, { schema: server.schema, keep: true }) : server;
    if (peer !== server) closing.push(() => peer.close());
    expect(await sweepAbandonedCampaigns(peer.app.charla)).toBe(0);
    answeredMeanwhile['sweep'] = !state.answered;
    const sent = await call(server, 'POST', `/v1/bots/${botId}/messages`, {
      body: { userId: uid('visitor'), type: 'text', text: 'meanwhile' },
    });
    answeredMeanwhile['bot message'] = !state.answered;
    expect(sent.status).toBe(200);
    expect(answeredMeanwhile).toEqual({
      list: true,
      update: true,
      cancel: true,
      claim: true,
      sweep: true,
      'bot message': true,
    });

    const created = await response;
    expect(created.status, created.text.slice(0, 300)).toBe(200);
    expect(created.body.data).toMatchObject({ id, status: 'PENDING', totalMessages: 100_000, botId });
    const after = await listOf(server, botId);
    expect(after.body.data.pagination.total).toBe(1);
    expect(after.body.data.results[0]).toEqual(created.body.data);
    expect(await rowsOf(server, botId)).toEqual({
      campaigns: [{ id, status: 'PENDING' }],
      recipients: 100_000,
    });
  }, 120_000);

  it('leaves nothing when its recipients cannot all be written: no campaign, no recipient', async () => {
    const server = await startServer();
    closing.push(() => server.close());
    const botId = await createBot(server);
    const db = server.app.charla.db;
    // A real refusal from the storage, past the first pieces: the recipient "refused" breaks a
    // constraint. A statement trigger counts the recipients each committed statement stored.
    await db.query(`ALTER TABLE campaign_recipients ADD CONSTRAINT refuse_one CHECK (user_id <> 'refused')`);
    await db.query('CREATE TABLE stored_pieces (n int NOT NULL)');
    await db.query(`CREATE FUNCTION count_piece() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN INSERT INTO stored_pieces SELECT count(*) FROM new_rows; RETURN NULL; END $f$`);
    await db.query(`CREATE TRIGGER count_piece AFTER INSERT ON campaign_recipients
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_piece()`);
    const before = await snapshot(server);
    const ids = recipients(9_000, 'ok');
    ids.splice(7_000, 0, 'refused');
    const res = await call(server, 'POST', '/v1/campaigns', {
      body: { name: 'Cut', elementName: 'cut', botId, recipients: ids, message },
    });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 0, error: { key: 'UNKNOWN_ERROR' } });
    // Pieces were stored (committed) before the refusal: the failure came midway.
    const pieces = await db.query<{ n: number }>('SELECT n FROM stored_pieces ORDER BY n');
    expect(pieces.rows.reduce((sum, r) => sum + r.n, 0)).toBeGreaterThanOrEqual(6_000);
    expect(await rowsOf(server, botId)).toEqual({ campaigns: [], recipients: 0 });
    expect((await listOf(server, botId)).body.data.pagination.total).toBe(0);
    expect(await snapshot(server)).toEqual(before);
  }, 120_000);

  it('cut off by a crash of its process, stays hidden and is swept: at the next start of the embedded store, or once its lease has run out', async () => {
    // The first service runs in a process of its own, killed (SIGKILL) in the middle of the creation.
    const dataDir = ON_POSTGRES ? undefined : await mkdtemp(join(tmpdir(), 'charla-campaign-crash-'));
    if (dataDir) closing.push(() => rm(dataDir, { recursive: true, force: true }));
    const schema = ON_POSTGRES ? `t_${randomUUID().replace(/-/g, '')}` : undefined;
    const env: Record<string, string> = {};
    if (schema) {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
      const url = new URL(DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      env['CHARLA_CHILD_DATABASE_URL'] = url.toString();
    } else {
      env['CHARLA_CHILD_DATA_DIR'] = dataDir as string;
      env['CHARLA_STORE_TEMPLATE'] = inject('pgliteSchemaTemplate');
    }
    const child = spawn(
      process.execPath,
      // tsx as a loader in this very process (its command line would run the service in a grandchild
      // that the kill does not reach).
      ['--import', 'tsx', CHILD],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
    );
    closing.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const lines = createInterface({ input: child.stdout! });
    closing.push(async () => lines.close());
    const said = lines[Symbol.asyncIterator]();
    const next = async () =>
      JSON.parse(String((await said.next()).value ?? 'null')) as Record<string, string>;
    const { address } = await next();
    const first = { base: address } as Server;
    const botId = await createBot(first);
    const { state, response } = startCreation(first, {
      name: 'Cut off',
      elementName: 'cut-off',
      botId,
      recipients: recipients(100_000, 'cut'),
      message,
    });
    const { writing } = await Promise.race([next(), response.then(() => ({ writing: undefined }))]);
    expect(writing, 'some recipients stored while the campaign is not answered yet').toBeDefined();
    expect(state.answered).toBe(false);
    child.kill('SIGKILL');
    await exited;
    expect((await response).status, 'the connection broke with the process').toBe(0);

    const again = await startServer(dataDir ? { databaseUrl: undefined, dataDir } : {}, { schema });
    closing.push(() => again.close());
    const left = await rowsOf(again, botId);
    expect(left.campaigns).toEqual([{ id: writing, status: 'CREATING' }]);
    expect(left.recipients).toBeGreaterThan(0);
    expect(left.recipients).toBeLessThan(100_000);
    expect((await listOf(again, botId)).body.data.pagination.total).toBe(0);
    expect(
      (await call(again, 'DELETE', `/v1/campaigns/${writing}`)).status,
      'cancel answers as for a campaign that does not exist',
    ).toBe(404);

    if (ON_POSTGRES) {
      // Shared storage: another process may be writing it; left alone until its lease runs out.
      expect(await sweepAbandonedCampaigns(again.app.charla)).toBe(0);
      expect((await rowsOf(again, botId)).campaigns).toHaveLength(1);
      await again.app.charla.db.query(
        `UPDATE campaigns SET claimed_at = now() - interval '1 hour' WHERE id = $1`,
        [writing],
      );
    }
    // The scheduler sweeps when it starts.
    const scheduler = new CampaignScheduler(again.app.charla, 60_000, { instanceId: 'restarted' });
    scheduler.start();
    try {
      await until(async () => (await rowsOf(again, botId)).campaigns.length === 0);
    } finally {
      await scheduler.stop();
    }
    expect(await rowsOf(again, botId)).toEqual({ campaigns: [], recipients: 0 });
  }, 120_000);
});
