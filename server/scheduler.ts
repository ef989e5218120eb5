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
import { onCampaignCreated } from './campaigns/service.ts';

export interface SchedulerOptions {
  /** Who claims (config.instanceId). */
  instanceId: string;
  /** A claim not renewed for this long is taken over. */
  staleAfterMs: number;
  /** Campaigns claimed per tick. */
  claimBatch?: number;
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

/** Claims due campaigns for this instance; returns their ids. */
export async function claimDueCampaigns(charla: Charla, options: SchedulerOptions): Promise<string[]> {
  return charla.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM campaigns
       WHERE company_id = $4
         AND ((status = 'SCHEDULED' AND scheduled_at <= now())
          OR status = 'PENDING'
          OR (status = 'IN_PROGRESS' AND (claimed_by = $1 OR claimed_by IS NULL
              OR claimed_at < now() - make_interval(secs => $2::double precision / 1000))))
       ORDER BY COALESCE(scheduled_at, created_at), id
       LIMIT $3
       FOR UPDATE SKIP LOCKED`,
      [options.instanceId, options.staleAfterMs, options.claimBatch ?? 5, charla.config.companyId],
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
      try {
        const sent = await deliverPrepared(charla, { botId: campaign.bot_id, userId, message, id });
        await markRecipient(
          charla,
          campaignId,
          userId,
          { status: 'delivered', messageId: sent.messageId },
          options.instanceId,
        );
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        await markRecipient(
          charla,
          campaignId,
          userId,
          { status: 'failed', error: reason },
          options.instanceId,
        );
      }
    }
  }
  const done = await charla.db.query(
    `UPDATE campaigns SET status = 'COMPLETED', completed_at = now(), updated_at = now(), claimed_by = NULL
     WHERE id = $1 AND status = 'IN_PROGRESS'`,
    [campaignId],
  );
  return done.rowCount > 0;
}

/**
 * One tick: claim a campaign and run it, up to claimBatch of them. One claim
 * at a time: a claim is renewed only while its campaign runs, so a queue of
 * claims held while another runs would look stale to the other processes.
 * Returns how many were claimed.
 */
export async function runDueCampaigns(charla: Charla, options: SchedulerOptions): Promise<number> {
  const most = options.claimBatch ?? 5;
  let claimed = 0;
  while (claimed < most && !options.shouldStop?.()) {
    const [id] = await claimDueCampaigns(charla, { ...options, claimBatch: 1 });
    if (id === undefined) break;
    claimed++;
    await runCampaign(charla, id, options);
  }
  return claimed;
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

/** The loop of one process: a tick every intervalMs, and at once when poked. */
export class CampaignScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private again = false;
  private readonly options: SchedulerOptions;

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
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    onCampaignCreated(this.charla, () => this.poke());
    this.schedule(0);
  }

  /** Runs a tick soon (a PENDING campaign was just created). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
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
    await this.running;
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
    if (this.stopped || this.running) return;
    this.again = false;
    this.running = (async () => {
      try {
        // Keep going while there was work: a big backlog drains without waiting a full interval.
        while (!this.stopped && (await runDueCampaigns(this.charla, this.options)) > 0) {
          /* next batch */
        }
      } catch (err) {
        this.onError(err);
      }
    })().finally(() => {
      this.running = null;
      this.schedule(this.again ? 0 : this.intervalMs);
    });
  }
}
