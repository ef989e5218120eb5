/**
 * Journey: campaigns from the QA console. One campaign is created SCHEDULED,
 * then renamed and moved later (update); another is created and cancelled.
 * The console's table shows the first one's status and counters move while
 * the scheduler sends: it reaches its three recipients (the console's own
 * widget sees it arrive live) and ends COMPLETED with 3 delivered, 0 failed.
 * The cancelled one ends CANCELLED and reaches nobody.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  botRoomOf,
  closeJourney,
  cspViolations,
  enterBotConversation,
  launchBrowser,
  messagesRegion,
  need,
  openPage,
  roomMessages,
  shot,
  startService,
  uniqueUser,
  unexpected,
  until,
  type Service,
} from './helpers.ts';

const J = 'campaigns';
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
const visitor = uniqueUser('e2e-camp');
const recipients = [visitor, uniqueUser('e2e-r2'), uniqueUser('e2e-r3')];
const tag = Date.now().toString(36);
let sentId: string;
let cancelledId: string;

function form(name: string): Locator {
  return page.getByRole('form', { name });
}

/** Fills the named fields of a console form, runs it, and returns the parsed result (or throws with the error shown). */
async function run(name: string, values: Record<string, string>): Promise<Record<string, any>> {
  const f = form(name);
  await need(f, `the console form ${name}`);
  for (const [field, value] of Object.entries(values)) await f.getByLabel(field, { exact: true }).fill(value);
  await f.getByRole('button', { name: 'Ejecutar' }).click();
  const result = f.locator('pre[data-result]');
  const state = await until(`${name} to answer`, async () => {
    const s = await result.getAttribute('data-state');
    return s === 'ok' || s === 'error' ? s : undefined;
  });
  const text = (await result.textContent()) ?? '';
  if (state !== 'ok') throw new Error(`${name} failed in the console: ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

function row(id: string): Locator {
  return page.locator(`#campaign-table tr[data-campaign-id="${id}"]`);
}
async function rowStatus(id: string): Promise<string | null> {
  return row(id).locator('.status').getAttribute('data-status');
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/console.html?user=${visitor}`, {
    width: 1400,
    height: 1000,
  }));
  await until('the console widget to connect', async () =>
    (await page.locator('#state-connection').textContent()) === 'connected' ? true : undefined,
  );
});

closeJourney(J, () => ({ page, browser, service }));

describe('journey: a campaign is created, updated, another cancelled', () => {
  /** When the first campaign was created to go. */
  let due: string;
  it('creates two SCHEDULED campaigns from the console', async () => {
    due = new Date(Date.now() + 12_000).toISOString();
    const message = JSON.stringify({ type: 'text', text: `Oferta E2E ${tag}: 2x1 en croissants` });
    const first = await run('http:createCampaign', {
      name: `E2E envío ${tag}`,
      elementName: `e2e_send_${tag}`,
      botId: DEMO_BOT_ID,
      recipients: recipients.join(', '),
      message,
      scheduledAt: due,
    });
    expect(first['data']).toMatchObject({ status: 'SCHEDULED', totalMessages: 3, deliveredMessages: 0 });
    sentId = first['data']['id'];

    const second = await run('http:createCampaign', {
      name: `E2E cancelada ${tag}`,
      elementName: `e2e_cancel_${tag}`,
      botId: DEMO_BOT_ID,
      recipients: recipients.join(', '),
      message: JSON.stringify({ type: 'text', text: `Esto no debe llegar ${tag}` }),
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    cancelledId = second['data']['id'];
    await need(row(sentId), 'the new campaign in the console table');
    await need(row(cancelledId), 'the second campaign in the console table');
    expect(await rowStatus(sentId)).toBe('SCHEDULED');
    await page.locator('#campaign-table').scrollIntoViewIfNeeded();
    await shot(page, J, 'scheduled');
  });

  it('updates the first (new name, later date) and cancels the second from its row', async () => {
    await row(sentId).getByRole('button', { name: 'Editar' }).click();
    // A second past the first date (an update must be later): soon enough not to keep the next
    // test waiting longer than the first date would have.
    const later = new Date(Date.parse(due) + 1_000).toISOString();
    const updated = await run('http:updateCampaign', {
      name: `E2E envío ${tag} (editada)`,
      scheduledAt: later,
    });
    expect(updated['data']).toMatchObject({
      id: sentId,
      name: `E2E envío ${tag} (editada)`,
      status: 'SCHEDULED',
    });
    expect(Date.parse(updated['data']['scheduledAt'])).toBe(Date.parse(later));

    await row(cancelledId).getByRole('button', { name: 'Cancelar' }).click();
    await until('the cancelled row', async () =>
      (await rowStatus(cancelledId)) === 'CANCELLED' ? true : undefined,
    );
    const cancelResult = await form('http:cancelCampaign').locator('pre[data-result]').textContent();
    expect(JSON.parse(cancelResult ?? '{}')['data']).toMatchObject({ id: cancelledId, status: 'CANCELLED' });
    // A cancelled campaign cannot be cancelled again: the console shows the service's 409.
    await expect(run('http:cancelCampaign', { campaignId: cancelledId })).rejects.toThrow(
      /409|INVALID_STATE/,
    );
    await page.locator('#campaign-table').scrollIntoViewIfNeeded();
    await shot(page, J, 'updated-and-cancelled');
  });

  it('the scheduled one reaches its recipients and ends COMPLETED with the right counters, moving in the table', async () => {
    const seen = new Set<string>();
    await until(
      'the campaign to end COMPLETED in the console table',
      async () => {
        const s = await rowStatus(sentId);
        if (s) seen.add(s);
        if (s === 'IN_PROGRESS' && !seen.has('shot')) {
          seen.add('shot');
          await page.locator('#campaign-table').scrollIntoViewIfNeeded();
          await shot(page, J, 'in-progress');
        }
        return s === 'COMPLETED' ? true : undefined;
      },
      45_000,
    );
    expect(await row(sentId).locator('[data-field="totalMessages"]').textContent()).toBe('3');
    expect(await row(sentId).locator('[data-field="deliveredMessages"]').textContent()).toBe('3');
    expect(await row(sentId).locator('[data-field="failedMessages"]').textContent()).toBe('0');
    await page.locator('#campaign-table').scrollIntoViewIfNeeded();
    await shot(page, J, 'completed');

    const today = new Date().toISOString().slice(0, 10);
    const listed = await service.api.listCampaigns({
      botId: DEMO_BOT_ID,
      startAt: today,
      endAt: today,
      elementName: `e2e_send_${tag}`,
    });
    expect(listed.data.results[0]).toMatchObject({
      status: 'COMPLETED',
      totalMessages: 3,
      deliveredMessages: 3,
      failedMessages: 0,
    });
    expect(listed.data.results[0]!.completedAt).not.toBeNull();

    // Each recipient has the message once in their bot room.
    for (const userId of recipients) {
      const roomId = await until(`${userId}'s bot room`, () => botRoomOf(service.app, userId));
      const texts = (await roomMessages(service.app, roomId)).map((m) => m['text']);
      expect(texts.filter((t) => t === `Oferta E2E ${tag}: 2x1 en croissants`)).toHaveLength(1);
    }
    // The console's widget (a recipient) shows it.
    await enterBotConversation(page);
    await need(
      messagesRegion(page).getByText(`Oferta E2E ${tag}: 2x1 en croissants`),
      'the campaign message in the recipient’s widget',
    );
    await shot(page, J, 'recipient-widget');
  });

  it('the cancelled one reached nobody', async () => {
    const { rows } = await service.app.charla.db.query<{ status: string; delivered_messages: number }>(
      'SELECT status, delivered_messages FROM campaigns WHERE id = $1',
      [cancelledId],
    );
    expect(rows[0]).toMatchObject({ status: 'CANCELLED', delivered_messages: 0 });
    const sent = await service.app.charla.db.query(
      "SELECT 1 FROM campaign_recipients WHERE campaign_id = $1 AND status <> 'pending'",
      [cancelledId],
    );
    expect(sent.rows).toHaveLength(0);
    for (const userId of recipients) {
      const roomId = await botRoomOf(service.app, userId);
      const texts = roomId
        ? (await roomMessages(service.app, roomId)).map((m) => String(m['text'] ?? ''))
        : [];
      expect(texts.some((t) => t.includes(`Esto no debe llegar ${tag}`))).toBe(false);
    }
    expect(await rowStatus(cancelledId)).toBe('CANCELLED');
  });

  it('keeps its rows while no campaign changes (polled each second, a row made again lost a click on its buttons)', async () => {
    const shown = await row(sentId).elementHandle();
    // Three polls of campaigns that no longer change.
    await page.waitForTimeout(3_200);
    expect(await shown!.evaluate((tr) => tr.isConnected)).toBe(true);
  });

  it('ran under the strict CSP without errors', async () => {
    expect(await cspViolations(page)).toEqual([]);
    // The refused second cancel is a 409 the console shows on purpose.
    expect(unexpected(problems, [/status of 409/, /^http 409 DELETE /])).toEqual([]);
  });
});
