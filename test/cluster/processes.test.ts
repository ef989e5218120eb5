/**
 * Two service processes (`node --import tsx server/main.ts`, as in production)
 * on one PostgreSQL and one Redis, each with its campaign scheduler on. Widget
 * users are connected to one process or the other, as a load balancer would
 * spread them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type CampaignResult, type Message } from '../../types/index.ts';
import { api, botMessagePath, createWidget, doubled, WidgetUser } from './client.ts';
import {
  freshDatabase,
  requireServices,
  restartRedis,
  sleep,
  sql,
  startRedis,
  stopRedis,
  startNode,
  waitFor,
  type Node,
  type Services,
} from './harness.ts';

let services: Services;
let database: { url: string; drop: () => Promise<void> } | null = null;
let a: Node;
let b: Node;
let widget: { apiKey: string; botId: string };
const users: WidgetUser[] = [];

const nodeEnv = { CHARLA_SIGNING_SECRET: 'cluster-test-signing-secret' };

/** A service process on this file's database and Redis, with the shared signing secret. */
function node(name: string): Promise<Node> {
  return startNode({ name, databaseUrl: database!.url, redisUrl: services.redisUrl, env: nodeEnv });
}

async function user(node: Node, id: string): Promise<WidgetUser> {
  const u = await WidgetUser.open(node.url, widget.apiKey, id);
  users.push(u);
  return u;
}

/** Fails with what both processes printed, which is what one needs to see then. */
function logsOnFailure(): string {
  return [a, b]
    .filter(Boolean)
    .map((n) => `--- ${n.name} ---\n${n.output().slice(-3000)}`)
    .join('\n');
}

beforeAll(async () => {
  services = requireServices();
  database = await freshDatabase(services.databaseUrl, 'processes');
  // Both start at once on an empty database: the migrations serialize on their lock.
  [a, b] = await Promise.all([node('node-a'), node('node-b')]);
  widget = await createWidget(a.url, 'cluster');
  // Let each process's stream reader start polling before anything is broadcast.
  await sleep(500);
});

afterAll(async () => {
  for (const u of users) u.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
});

describe('two service processes on one PostgreSQL and one Redis', () => {
  it('ran every migration once although both started together', async () => {
    const rows = await sql<{ id: string; n: string }>(
      database!.url,
      'SELECT id, count(*)::text AS n FROM charla_migrations GROUP BY id ORDER BY id',
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.n === '1')).toBe(true);
  });

  it('lets a user on process A and a user on process B chat with nothing lost or doubled', async () => {
    const alice = await user(a, 'alice');
    const bob = await user(b, 'bob');
    const roomId = await alice.directRoomWith('bob');
    await alice.connect();
    await bob.connect();

    const perSide = 40;
    const sent = await Promise.all([
      (async () => {
        const out: Message[] = [];
        for (let i = 0; i < perSide; i++) out.push(await alice.send(roomId, `alice ${i}`));
        return out;
      })(),
      (async () => {
        const out: Message[] = [];
        for (let i = 0; i < perSide; i++) out.push(await bob.send(roomId, `bob ${i}`));
        return out;
      })(),
    ]);
    const ids = new Set(sent.flat().map((m) => m.id));
    expect(ids.size).toBe(perSide * 2);

    for (const u of [alice, bob]) {
      await waitFor(
        `${u.userId} to see all ${ids.size} messages`,
        () => u.inRoom(roomId).length >= ids.size,
        15_000,
      );
    }
    await sleep(300);
    for (const u of [alice, bob]) {
      const got = u.inRoom(roomId);
      expect(doubled(got), `${u.userId} got some twice`).toEqual([]);
      expect(new Set(got.map((m) => m.id))).toEqual(ids);
    }
    // One order for everyone: the room's sequence, 1..n without holes or repeats.
    const seqs = sent
      .flat()
      .map((m) => m.seq)
      .sort((x, y) => (x ?? 0) - (y ?? 0));
    expect(seqs).toEqual(Array.from({ length: ids.size }, (_, i) => i + 1));
    // Each side's own sends are numbered in the order it sent them.
    for (const side of sent) {
      const s = side.map((m) => m.seq ?? 0);
      expect([...s].sort((x, y) => x - y)).toEqual(s);
    }
    const stored = await sql<{ n: string }>(
      database!.url,
      'SELECT count(*)::text AS n FROM messages WHERE room_id = $1',
      [roomId],
    );
    expect(stored[0]?.n).toBe(String(ids.size));
  });

  it('stores a message sent at once through both processes (two tabs, one id) exactly once', async () => {
    const carol = await user(a, 'carol');
    const carolTab2 = await WidgetUser.open(b.url, widget.apiKey, 'carol');
    users.push(carolTab2);
    const dave = await user(b, 'dave');
    const roomId = await carol.directRoomWith('dave');
    await Promise.all([carol.connect(), carolTab2.connect(), dave.connect()]);

    for (let i = 0; i < 10; i++) {
      const id = randomUUID();
      const [x, y] = await Promise.all([
        carol.send(roomId, `twice ${i}`, id),
        carolTab2.send(roomId, `twice ${i}`, id),
      ]);
      expect(x.id).toBe(id);
      expect(y.seq).toBe(x.seq);
    }
    const rows = await sql<{ n: string }>(
      database!.url,
      'SELECT count(*)::text AS n FROM messages WHERE room_id = $1',
      [roomId],
    );
    expect(rows[0]?.n).toBe('10');
    await waitFor('dave to see 10 messages', () => dave.inRoom(roomId).length >= 10, 10_000);
    await sleep(300);
    expect(doubled(dave.inRoom(roomId))).toEqual([]);
    expect(dave.inRoom(roomId)).toHaveLength(10);
  });

  it('stores a room post sent at once to both processes with the same message ids once', async () => {
    const kim = await user(b, 'kim');
    await kim.connect();
    const roomId = kim.session.botRoomId;
    const messages = Array.from({ length: 5 }, (_, i) => ({
      id: randomUUID(),
      type: 'TEXT',
      text: `post ${i}`,
    }));
    const path = `/v1/rooms/${encodeURIComponent(roomId)}/message`;
    const body = { senderId: 'operator-1', messages };
    await Promise.all([api(a.url, 'POST', path, body), api(b.url, 'POST', path, body)]);
    const ids: string[] = messages.map((m) => m.id);
    const rows = await sql<{ id: string }>(database!.url, 'SELECT id FROM messages WHERE id = ANY($1)', [
      ids,
    ]);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    await waitFor(
      'the posts live on B',
      () => ids.every((id) => kim.received.some((m) => String(m.id) === id)),
      10_000,
    );
    await sleep(300);
    expect(doubled(kim.received.filter((m) => ids.includes(String(m.id))))).toEqual([]);
  });

  it('delivers a bot message sent to process A to the user connected to process B', async () => {
    const erin = await user(b, 'erin');
    await erin.connect();
    const roomId = erin.session.botRoomId;
    const text = `hello from the bot ${randomUUID()}`;
    const res = await api<{ success: boolean; messageId: string }>(
      a.url,
      'POST',
      botMessagePath(widget.botId),
      {
        userId: 'erin',
        type: 'text',
        text,
      },
    );
    expect(res.success).toBe(true);
    await waitFor(
      'the bot message on B',
      () => erin.inRoom(roomId).some((m) => m.id === res.messageId),
      10_000,
    );
    const got = erin.inRoom(roomId).filter((m) => m.id === res.messageId);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ type: 'TEXT', text, senderId: widget.botId });
  });

  it.each([
    { variant: 'scheduled', due: true },
    { variant: 'sent at once', due: false },
  ])(
    'sends a campaign ($variant) once although both processes run the scheduler',
    async ({ variant, due }) => {
      const prefix = `camp-once-${due ? 's' : 'p'}`;
      const recipients = Array.from({ length: 40 }, (_, i) => `${prefix}-${i}`);
      // One recipient is online on B, to see the campaign arrive live and once.
      const frank = await user(b, recipients[0]!);
      await frank.connect();
      const text = `campaign ${variant} ${randomUUID()}`;
      // A scheduled one is made on A, one sent at once on B (which pokes its own scheduler first).
      const created = await api<CampaignResult>(due ? a.url : b.url, 'POST', ROUTES.createCampaign, {
        name: 'once',
        elementName: 'cluster-test',
        botId: widget.botId,
        recipients,
        message: { type: 'text', text },
        ...(due ? { scheduledAt: new Date(Date.now() + 1500).toISOString() } : {}),
      });
      expect(['SCHEDULED', 'PENDING', 'IN_PROGRESS', 'COMPLETED']).toContain(created.data.status);
      if (due) expect(created.data.status).toBe('SCHEDULED');
      const campaignId = created.data.id;

      await waitFor(
        'the campaign to complete',
        async () => {
          const r = await sql<{ status: string }>(
            database!.url,
            'SELECT status FROM campaigns WHERE id = $1',
            [campaignId],
          );
          return r[0]?.status === 'COMPLETED';
        },
        60_000,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${logsOnFailure()}`);
      });

      const perRoom = await sql<{ room_key: string; n: string }>(
        database!.url,
        `SELECT r.room_key, count(*)::text AS n FROM messages m JOIN rooms r ON r.id = m.room_id
       WHERE m.body->>'text' = $1 GROUP BY r.room_key`,
        [text],
      );
      expect(perRoom.map((r) => r.room_key).sort()).toEqual(
        recipients.map((u) => `bot:${widget.botId}:${u}`).sort(),
      );
      expect(perRoom.filter((r) => r.n !== '1')).toEqual([]);
      const [campaign] = await sql<{
        total_messages: number;
        delivered_messages: number;
        failed_messages: number;
      }>(
        database!.url,
        'SELECT total_messages, delivered_messages, failed_messages FROM campaigns WHERE id = $1',
        [campaignId],
      );
      expect(campaign).toEqual({ total_messages: 40, delivered_messages: 40, failed_messages: 0 });

      await waitFor('the campaign message live on B', () =>
        frank.received.some((m) => m.type === 'TEXT' && m.text === text),
      );
      await sleep(300);
      expect(frank.received.filter((m) => m.type === 'TEXT' && m.text === text)).toHaveLength(1);
    },
  );

  it('loses nothing when Redis restarts in the middle of a conversation', async () => {
    const gina = await user(a, 'gina');
    const hugo = await user(b, 'hugo');
    const roomId = await gina.directRoomWith('hugo');
    await gina.connect();
    await hugo.connect();

    const total = 60;
    const sent: Message[] = [];
    let restart: Promise<void> | null = null;
    for (let i = 0; i < total; i++) {
      const from = i % 2 === 0 ? gina : hugo;
      sent.push(await from.send(roomId, `${from.userId} ${i}`));
      // Restart while the conversation goes on: sends continue during the outage.
      if (i === 20) restart = restartRedis(services.redisUrl, 500);
      await sleep(20);
    }
    await restart;
    const ids = new Set(sent.map((m) => m.id));
    expect(ids.size).toBe(total);
    for (const u of [gina, hugo]) {
      await waitFor(
        `${u.userId} to see all ${total} messages live`,
        () => new Set(u.inRoom(roomId).map((m) => m.id)).size >= total,
        30_000,
      ).catch((err: Error) => {
        const missing = [...ids].filter((id) => !u.inRoom(roomId).some((m) => m.id === id));
        throw new Error(
          `${err.message}; missing ${missing.length}: ${missing.slice(0, 5).join(', ')}\n${logsOnFailure()}`,
        );
      });
    }
    await sleep(300);
    for (const u of [gina, hugo]) {
      expect(doubled(u.inRoom(roomId)), `${u.userId} got some twice`).toEqual([]);
      expect(new Set(u.inRoom(roomId).map((m) => m.id))).toEqual(ids);
      // And storage agrees: a gap fill from 0 returns exactly the conversation.
      const filled = (await u.sync({ [roomId]: 0 })).messages.filter((m) => m.roomId === roomId);
      expect(new Set(filled.map((m) => m.id))).toEqual(ids);
      const seqs = filled.map((m) => m.seq ?? 0);
      expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
    }
  });

  it('keeps taking messages while Redis is down and delivers them live when it is back', async () => {
    const ines = await user(a, 'ines');
    const jose = await user(b, 'jose');
    const roomId = await ines.directRoomWith('jose');
    await ines.connect();
    await jose.connect();
    await ines.send(roomId, 'before');
    await waitFor('the first message on B', () => jose.inRoom(roomId).length === 1, 10_000);

    await stopRedis(services.redisUrl);
    let during: Message;
    try {
      // Storage is PostgreSQL: the send is acknowledged at once, Redis or not.
      // Before, the send waited for Redis and its acknowledgement timed out (5 s): it rejected.
      during = await ines.send(roomId, 'during', randomUUID(), 1);
      // Longer than the Redis client's default command timeout (5 s).
      await sleep(6000);
    } finally {
      await startRedis(services.redisUrl);
    }
    await waitFor(
      'the message sent during the outage, live on B',
      () => jose.inRoom(roomId).some((m) => m.id === during.id),
      15_000,
    );
    await ines.send(roomId, 'after');
    await waitFor('the message after the outage on B', () => jose.inRoom(roomId).length === 3, 10_000);
    expect(jose.inRoom(roomId).map((m) => m.type === 'TEXT' && m.text)).toEqual([
      'before',
      'during',
      'after',
    ]);
  });

  it('lets a user whose process died reconnect to another one and fill the gap from there', async () => {
    // A third process, so the two others stay up for the tests after this one.
    const c = await node('node-c');
    try {
      const lena = await WidgetUser.open(c.url, widget.apiKey, 'lena');
      users.push(lena);
      const marc = await user(a, 'marc');
      const roomId = await marc.directRoomWith('lena');
      await lena.connect();
      await marc.connect();
      await marc.send(roomId, 'one');
      await waitFor('lena to see the first message', () => lena.inRoom(roomId).length === 1, 10_000);
      const held = Math.max(...lena.inRoom(roomId).map((m) => m.seq ?? 0));

      await c.kill();
      const missed: Message[] = [];
      for (let i = 0; i < 5; i++) missed.push(await marc.send(roomId, `while lena was away ${i}`));

      // The balancer sends her elsewhere; the session opened on the dead process is valid here.
      lena.close();
      await lena.connect(b.url);
      const filled = (await lena.sync({ [roomId]: held })).messages.filter((m) => m.roomId === roomId);
      expect(filled.map((m) => m.id)).toEqual(missed.map((m) => m.id));
      // And she is live again on the new process.
      const after = await marc.send(roomId, 'welcome back');
      await waitFor(
        'lena to get messages live on B',
        () => lena.inRoom(roomId).some((m) => m.id === after.id),
        10_000,
      );
    } finally {
      await c.kill();
    }
  });

  it('a process told to stop (SIGTERM) closes its own live connections only: the other process’s stay up', async () => {
    const d = await node('node-d');
    try {
      const onD = await WidgetUser.open(d.url, widget.apiKey, `on-d-${randomUUID()}`);
      users.push(onD);
      const onB = await user(b, `on-b-${randomUUID()}`);
      await onD.connect();
      await onB.connect();
      const reasons: string[] = [];
      onB.socket!.on('disconnect', (reason) => reasons.push(reason));
      onD.socket!.io.opts.reconnection = false;
      const dropped = new Promise<string>((resolve) => onD.socket!.once('disconnect', resolve));
      await d.stop();
      // The stopping process closed its own: the server's disconnect, so the widget goes elsewhere.
      expect(await dropped).toBe('io server disconnect');
      // With the Redis adapter a cluster-wide disconnect would reach B's sockets within milliseconds.
      await sleep(1000);
      expect(reasons).toEqual([]);
      expect(onB.socket!.connected).toBe(true);
    } finally {
      await d.kill();
    }
  });

  it('finishes a campaign on the other process when the one sending it is killed', async () => {
    const total = 400;
    const recipients = Array.from({ length: total }, (_, i) => `camp-kill-${i}`);
    const text = `campaign killed ${randomUUID()}`;
    const created = await api<CampaignResult>(a.url, 'POST', ROUTES.createCampaign, {
      name: 'killed',
      elementName: 'cluster-test',
      botId: widget.botId,
      recipients,
      message: { type: 'text', text },
      scheduledAt: new Date(Date.now() + 1500).toISOString(),
    });
    const campaignId = created.data.id;
    const sentSoFar = async () =>
      Number(
        (
          await sql<{ n: string }>(
            database!.url,
            `SELECT count(*)::text AS n FROM messages WHERE body->>'text' = $1`,
            [text],
          )
        )[0]?.n ?? 0,
      );

    // Wait until a process is part-way through it, then kill that process.
    let victim: Node | undefined;
    let sentAtKill = 0;
    await waitFor(
      'the campaign to be part-way sent',
      async () => {
        const [c] = await sql<{ status: string; claimed_by: string | null }>(
          database!.url,
          'SELECT status, claimed_by FROM campaigns WHERE id = $1',
          [campaignId],
        );
        if (c?.status === 'COMPLETED')
          throw new Error('the campaign completed before a process could be killed mid-way');
        const n = await sentSoFar();
        if (c?.status !== 'IN_PROGRESS' || n === 0) return false;
        victim = [a, b].find((x) => x.name === c.claimed_by);
        if (!victim) throw new Error(`campaign claimed by ${c.claimed_by}, which is neither process`);
        await victim.kill();
        sentAtKill = await sentSoFar();
        return true;
      },
      30_000,
      10,
    );
    expect(sentAtKill).toBeLessThan(total);
    const survivor = victim === a ? b : a;
    expect(survivor.child.exitCode).toBeNull();

    await waitFor(
      'the survivor to complete the campaign',
      async () => {
        const r = await sql<{ status: string }>(database!.url, 'SELECT status FROM campaigns WHERE id = $1', [
          campaignId,
        ]);
        return r[0]?.status === 'COMPLETED';
      },
      90_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${logsOnFailure()}`);
    });

    const perRoom = await sql<{ room_key: string; n: string }>(
      database!.url,
      `SELECT r.room_key, count(*)::text AS n FROM messages m JOIN rooms r ON r.id = m.room_id
       WHERE m.body->>'text' = $1 GROUP BY r.room_key`,
      [text],
    );
    expect(perRoom).toHaveLength(total);
    expect(
      perRoom.filter((r) => r.n !== '1'),
      'recipients sent to twice',
    ).toEqual([]);
    const [campaign] = await sql<{ delivered_messages: number; failed_messages: number }>(
      database!.url,
      'SELECT delivered_messages, failed_messages FROM campaigns WHERE id = $1',
      [campaignId],
    );
    // The victim was dead from sentAtKill on: the rest was the survivor's.
    expect(campaign).toEqual({ delivered_messages: total, failed_messages: 0 });
  });
});
