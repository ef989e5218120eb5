import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ON_POSTGRES, call, createBot, inSeconds, startServer, uid } from './helpers/http.ts';
import { campaignMessageId, claimDueCampaigns, runCampaign } from '../../server/scheduler.ts';

// PGlite in a directory (or one PostgreSQL schema kept between the two servers).
const dir = mkdtempSync(join(tmpdir(), 'charla-restart-'));
const storage = ON_POSTGRES
  ? { databaseUrl: process.env['DATABASE_URL'] }
  : { databaseUrl: undefined, dataDir: dir };
const schema = `t_restart_${uid('s').replace(/-/g, '').slice(2, 20)}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('restart survival', () => {
  it('keeps bots, widgets, keys and campaigns, and resumes an interrupted campaign without sending twice', async () => {
    const instanceId = 'restart-node';
    const first = await startServer({ ...storage, instanceId }, { schema, keep: true });
    const botId = await createBot(first);
    const scheduled = await call(first, 'POST', '/v1/campaigns', {
      body: {
        name: 'Later',
        elementName: 'later',
        botId,
        recipients: ['r1'],
        message: { type: 'text', text: 'x' },
        scheduledAt: inSeconds(3600),
      },
    });
    const users = ['a', 'b', 'c', 'd'].map((u) => `${u}-${uid('u')}`).sort();
    const running = await call(first, 'POST', '/v1/campaigns', {
      body: {
        name: 'Now',
        elementName: 'now',
        botId,
        recipients: users,
        message: { type: 'text', text: 'Hola' },
      },
    });
    const runningId = running.body.data.id as string;
    // The process "dies" after two recipients of the running campaign.
    await claimDueCampaigns(first.app.charla, { instanceId, staleAfterMs: 60_000 });
    let n = 0;
    await runCampaign(first.app.charla, runningId, {
      instanceId,
      staleAfterMs: 60_000,
      recipientBatch: 1,
      shouldStop: () => n++ >= 2,
    });
    await first.close();

    const second = await startServer(
      { ...storage, instanceId, scheduler: true, schedulerIntervalMs: 100 },
      { schema },
    );
    try {
      const listed = await call(
        second,
        'GET',
        `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01`,
      );
      expect(listed.status).toBe(200);
      expect(listed.body.data.pagination.total).toBe(2);
      const bots = await second.app.charla.db.query('SELECT id FROM bots WHERE id = $1', [botId]);
      expect(bots.rows).toHaveLength(1);
      // The scheduler of the restarted process resumes its own claim.
      const done = await (async () => {
        for (let i = 0; i < 600; i++) {
          const r = await second.app.charla.db.query<{
            status: string;
            delivered_messages: number;
            failed_messages: number;
          }>('SELECT status, delivered_messages, failed_messages FROM campaigns WHERE id = $1', [runningId]);
          if (r.rows[0]?.status === 'COMPLETED') return r.rows[0];
          await new Promise((res) => setTimeout(res, 50));
        }
        return null;
      })();
      expect(done).toMatchObject({ status: 'COMPLETED', delivered_messages: 4, failed_messages: 0 });
      for (const u of users) {
        const m = await second.app.charla.db.query('SELECT 1 FROM messages WHERE id = $1', [
          campaignMessageId(runningId, u),
        ]);
        expect(m.rows).toHaveLength(1);
      }
      const cancel = await call(second, 'DELETE', `/v1/campaigns/${scheduled.body.data.id}`);
      expect(cancel.status).toBe(200);
      expect(cancel.body.data.status).toBe('CANCELLED');
    } finally {
      await second.close();
    }
  }, 180_000);
});
