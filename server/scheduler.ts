/**
 * The campaign scheduler. Each tick claims due campaigns with row locks
 * (`FOR UPDATE SKIP LOCKED`, then claimed_by/claimed_at), moves them to
 * IN_PROGRESS, sends the message to every pending recipient through the bot
 * message path, and ends them COMPLETED.
 *
 * Exactly once per recipient, across crashes: each recipient's message id is
 * derived from (campaign, recipient), so delivering it again stores nothing
 * new; the recipient is marked done and the campaign's counter moved in one
 * statement, and only when the recipient was still pending. A process killed
 * between deliver and mark re-delivers (a no-op) and marks on restart. A claim
 * whose holder stopped renewing it (claimed_at older than staleAfterMs) is
 * taken over by another process.
 */
import { createHash } from 'node:crypto';
import type { BotMessageContent } from '../types/index.ts';
import type { Charla } from './context.ts';
import { deliverPrepared, fromBot } from './bot-message.ts';
import { onCampaignCreated, sweepAbandonedCampaigns } from './campaigns/service.ts';
import { storageUnavailable } from './http/errors.ts';

export interface SchedulerOptions {
  /** Who claims (config.instanceId). */
  instanceId: string;
  /** A claim not renewed for this long is taken over. */
  staleAfterMs: number;
  /** Campaigns claimed per call of runDueCampaigns. */
  claimBatch?: number;
  /** Campaigns sent at once by this process (default CAMPAIGN_LANES). */
  lanes?: number;
  /** Recipients read per query. */
  recipientBatch?: number;
  /** Asked between recipients: stop early (shutdown). */
  shouldStop?: () => boolean;
}

const NAMESPACE = 'charla-campaign-message';

/** A UUID (version 5 layout) derived from the campaign and the recipient. */
export function campaignMessageId(campaignId: string, userId: string): string {
  const h = createHash('sha1').update(`${NAMESPACE}\n${campaignId}\n${userId}`).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Campaigns sent side by side by one process: a campaign of 100,000 recipients
 * does not hold back one that is due now, which starts in another lane.
 */
export const CAMPAIGN_LANES = 4;

/**
 * Claims due campaigns for this instance; returns their ids. `exclude`: the
 * campaigns this process is sending now (its own IN_PROGRESS claims are
 * otherwise claimable, so that a restarted process with the same instance id
 * resumes them).
 */
export async function claimDueCampaigns(
  charla: Charla,
  options: SchedulerOptions,
  exclude: readonly string[] = [],
): Promise<string[]> {
  return charla.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM campaigns
       WHERE company_id = $4
         AND ((status = 'SCHEDULED' AND scheduled_at <= now())
          OR status = 'PENDING'
          OR (status = 'IN_PROGRESS' AND (claimed_by = $1 OR claimed_by IS NULL
              OR claimed_at < now() - make_interval(secs => $2::double precision / 1000))))
         AND NOT (id = ANY($5::text[]))
       ORDER BY COALESCE(scheduled_at, created_at), id
       LIMIT $3
       FOR UPDATE SKIP LOCKED`,
      [options.instanceId, options.staleAfterMs, options.claimBatch ?? 5, charla.config.companyId, exclude],
    );
    const ids = rows.map((r) => r.id);
    if (ids.length) {
      await tx.query(
        `UPDATE campaigns SET status = 'IN_PROGRESS', claimed_by = $1, claimed_at = now(), updated_at = now()
         WHERE id = ANY($2::text[])`,
        [options.instanceId, ids],
      );
    }
    return ids;
  });
}

/** Records one recipient's outcome and moves the counters, once. */
async function markRecipient(
  charla: Charla,
  campaignId: string,
  userId: string,
  outcome: { status: 'delivered'; messageId: string } | { status: 'failed'; error: string },
  instanceId: string,
): Promise<void> {
  const delivered = outcome.status === 'delivered';
  await charla.db.query(
    `WITH r AS (
       UPDATE campaign_recipients SET status = $3, message_id = $4, error = $5, updated_at = now()
       WHERE campaign_id = $1 AND user_id = $2 AND status = 'pending'
       RETURNING 1
     )
     UPDATE campaigns SET
       delivered_messages = delivered_messages + CASE WHEN $6 THEN (SELECT count(*) FROM r)::int ELSE 0 END,
       failed_messages = failed_messages + CASE WHEN $6 THEN 0 ELSE (SELECT count(*) FROM r)::int END,
       claimed_at = CASE WHEN claimed_by = $7 THEN now() ELSE claimed_at END
     WHERE id = $1`,
    [
      campaignId,
      userId,
      outcome.status,
      delivered ? outcome.messageId : null,
      delivered ? null : outcome.error.slice(0, 1000),
      delivered,
      instanceId,
    ],
  );
}

/** Sends a claimed campaign to its pending recipients; COMPLETED when none is left. */
export async function runCampaign(
  charla: Charla,
  campaignId: string,
  options: SchedulerOptions,
): Promise<boolean> {
  const { rows } = await charla.db.query<{
    bot_id: string;
    bot_name: string | null;
    message: BotMessageContent | string;
    status: string;
  }>(
    'SELECT c.bot_id, b.name AS bot_name, c.message, c.status FROM campaigns c LEFT JOIN bots b ON b.id = c.bot_id WHERE c.id = $1',
    [campaignId],
  );
  const campaign = rows[0];
  if (!campaign || campaign.status !== 'IN_PROGRESS') return false;
  const content = (
    typeof campaign.message === 'string' ? JSON.parse(campaign.message) : campaign.message
  ) as BotMessageContent;
  const message = fromBot(content, campaign.bot_name);
  const batch = options.recipientBatch ?? 200;
  for (;;) {
    const { rows: pending } = await charla.db.query<{ user_id: string }>(
      `SELECT user_id FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending' ORDER BY user_id LIMIT $2`,
      [campaignId, batch],
    );
    if (pending.length === 0) break;
    for (const { user_id: userId } of pending) {
      if (options.shouldStop?.()) return false;
      const id = campaignMessageId(campaignId, userId);
      let sent: { messageId: string };
      try {
        sent = await deliverPrepared(charla, { botId: campaign.bot_id, userId, message, id });
      } catch (err) {
        // The database out of reach for a moment (a restart, a failover, a dropped connection) is
        // not the recipient's failure, and the message may even be stored (its answer lost): the
        // recipient stays pending, and the campaign, still IN_PROGRESS and claimed by this
        // process, goes on at the next tick, when delivering again stores nothing new (same id).
        if (storageUnavailable(err)) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        await markRecipient(
          charla,
          campaignId,
          userId,
          { status: 'failed', error: reason },
          options.instanceId,
        );
        continue;
      }
      // Not within the try above: a failure to record a delivery (the database gone for a moment)
      // never marks the recipient failed; it stays pending and is counted delivered, once, later.
      await markRecipient(
        charla,
        campaignId,
        userId,
        { status: 'delivered', messageId: sent.messageId },
        options.instanceId,
      );
    }
  }
  const done = await charla.db.query(
    `UPDATE campaigns SET status = 'COMPLETED', completed_at = now(), updated_at = now(), claimed_by = NULL
     WHERE id = $1 AND status = 'IN_PROGRESS'`,
    [campaignId],
  );
  return done.rowCount > 0;
}

/** The campaigns each service (its Charla) is sending now, and its queue of claims. */
const sending = new WeakMap<Charla, { running: Set<string>; claims: Promise<unknown> }>();

function sendingOf(charla: Charla) {
  let state = sending.get(charla);
  if (!state) sending.set(charla, (state = { running: new Set(), claims: Promise.resolve() }));
  return state;
}

/**
 * Claims the next due campaign that this process is not sending already and
 * counts it as running, or answers undefined. One claim at a time per process:
 * two lanes claiming at once would both see the same campaign as free.
 */
function claimNext(charla: Charla, options: SchedulerOptions): Promise<string | undefined> {
  const state = sendingOf(charla);
  const claim = state.claims.then(async () => {
    const [id] = await claimDueCampaigns(charla, { ...options, claimBatch: 1 }, [...state.running]);
    if (id !== undefined) state.running.add(id);
    return id;
  });
  state.claims = claim.catch(() => undefined);
  return claim;
}

/** Sends a campaign claimNext answered; it stops counting as running when done. */
async function send(charla: Charla, id: string, options: SchedulerOptions): Promise<void> {
  try {
    await runCampaign(charla, id, options);
  } finally {
    sendingOf(charla).running.delete(id);
  }
}

/**
 * The lanes of one sender (the scheduler's loop, or one call of runDueCampaigns): up to `size`
 * campaigns sent at once, each free lane claiming the next due campaign (claimNext) until none is
 * due or `most` were claimed. A claim is made only for a lane that is free now, never queued: a
 * claim is renewed only while its campaign is sent, and one held in a queue would look stale to
 * the other processes. When a lane's campaign is sent, `freed` is told (the owner fills again);
 * when sending it failed, `failed` is told instead (no busy retry).
 */
class Lanes {
  private readonly sends = new Set<Promise<void>>();
  /** Campaigns claimed so far. */
  claimed = 0;

  constructor(
    private readonly charla: Charla,
    private readonly options: SchedulerOptions,
    private readonly size: number,
    private readonly most: number,
    private readonly freed: () => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Campaigns being sent now. */
  get busy(): number {
    return this.sends.size;
  }

  /**
   * Claims a campaign for each free lane, while any is due. One fill at a time (its owner sees
   * to it): two at once would both count the same lane as free.
   */
  async fill(): Promise<void> {
    while (!this.options.shouldStop?.() && this.sends.size < this.size && this.claimed < this.most) {
      const id = await claimNext(this.charla, this.options);
      if (id === undefined) return;
      this.claimed++;
      // The lane counts as free before its owner hears of it, so that the fill it asks for sees it free.
      const sent: Promise<void> = send(this.charla, id, this.options).then(
        () => {
          this.sends.delete(sent);
          this.freed();
        },
        (err: unknown) => {
          this.sends.delete(sent);
          this.failed(err);
        },
      );
      this.sends.add(sent);
    }
  }

  /** Settles when one of the campaigns being sent now is done (its lane is free by then). */
  next(): Promise<void> {
    return Promise.race(this.sends);
  }

  /** Settles when every campaign being sent now is done. */
  async idle(): Promise<void> {
    await Promise.all(this.sends);
  }
}

/**
 * Sends due campaigns until none is left or claimBatch were claimed, up to `lanes` at once (the
 * scheduler's lanes, run to the end once); a lane freed claims the next. Returns how many were
 * claimed; rejects with the first failure, once every lane is done.
 */
export async function runDueCampaigns(charla: Charla, options: SchedulerOptions): Promise<number> {
  const most = options.claimBatch ?? 5;
  const failures: unknown[] = [];
  const size = Math.min(most, options.lanes ?? CAMPAIGN_LANES);
  const lanes = new Lanes(
    charla,
    options,
    size,
    most,
    () => {},
    (err) => failures.push(err),
  );
  // Fill the free lanes, wait for one to be freed, again; none after a failure.
  while (failures.length === 0) {
    try {
      await lanes.fill();
    } catch (err) {
      failures.push(err);
      break;
    }
    if (lanes.busy === 0) break;
    await lanes.next();
  }
  await lanes.idle();
  if (failures.length > 0) throw failures[0];
  return lanes.claimed;
}

/**
 * Gives up this process's claims on campaigns it stopped in the middle of (a
 * shutdown): another process takes them over at its next tick instead of
 * waiting for the claim to go stale.
 */
export async function releaseClaims(charla: Charla, instanceId: string): Promise<number> {
  const r = await charla.db.query(
    `UPDATE campaigns SET claimed_by = NULL, updated_at = now()
     WHERE claimed_by = $1 AND status = 'IN_PROGRESS'`,
    [instanceId],
  );
  return r.rowCount;
}

/** How often the scheduler looks for abandoned campaign creations (and once when it starts). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The loop of one process: fills its lanes every intervalMs, at once when
 * poked (a PENDING campaign was created), and whenever a lane is freed.
 */
export class CampaignScheduler {
  private timer: NodeJS.Timeout | null = null;
  private filling: Promise<void> | null = null;
  private sweeping: Promise<void> | null = null;
  private sweptAt = -Infinity;
  private stopped = true;
  private again = false;
  private readonly options: SchedulerOptions;
  private readonly lanes: Lanes;

  constructor(
    private readonly charla: Charla,
    private readonly intervalMs: number,
    options: Partial<SchedulerOptions> = {},
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.options = {
      instanceId: options.instanceId ?? charla.config.instanceId,
      staleAfterMs: options.staleAfterMs ?? Math.max(30_000, intervalMs * 20),
      ...options,
      shouldStop: () => this.stopped,
    };
    // A lane freed fills again at once; after a failure, at the next tick (no busy retry).
    this.lanes = new Lanes(
      charla,
      this.options,
      options.lanes ?? CAMPAIGN_LANES,
      Infinity,
      () => this.poke(),
      this.onError,
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    onCampaignCreated(this.charla, () => this.poke());
    this.schedule(0);
  }

  /** Fills the free lanes soon (a PENDING campaign was just created, or a lane was freed). */
  poke(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    const wasRunning = !this.stopped;
    this.stopped = true;
    onCampaignCreated(this.charla, null);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.filling;
    await this.sweeping;
    await this.lanes.idle();
    if (wasRunning) await releaseClaims(this.charla, this.options.instanceId);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref?.();
  }

  private tick(): void {
    this.timer = null;
    if (this.stopped || this.filling) return;
    this.sweep();
    this.again = false;
    this.filling = this.lanes
      .fill()
      .catch(this.onError)
      .finally(() => {
        this.filling = null;
        this.schedule(this.again ? 0 : this.intervalMs);
      });
  }

  /**
   * Deletes abandoned campaign creations (sweepAbandonedCampaigns) at the first tick and then
   * every SWEEP_EVERY_MS, beside the lanes: a sweep never holds back a claim.
   */
  private sweep(): void {
    const now = performance.now();
    if (this.sweeping || now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    this.sweeping = sweepAbandonedCampaigns(this.charla, { shouldStop: () => this.stopped })
      .then(() => {}, this.onError)
      .finally(() => {
        this.sweeping = null;
      });
  }
}
