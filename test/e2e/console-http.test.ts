/**
 * The QA console's HTTP forms (through the `charla/api` client bundled into
 * the page): each shows the request it sent and the response, or the error
 * with its body; bot messages reach the console's own widget; a created
 * widget can be embedded live; room posts are idempotent; arguments the
 * client rejects are never sent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  DEMO_BOT_ID,
  closeJourney,
  cspViolations,
  enterBotConversation,
  launchBrowser,
  messagesRegion,
  need,
  needInList,
  openPage,
  roomMessages,
  runConsoleForm,
  shot,
  startService,
  uniqueUser,
  unexpected,
  until,
  type Service,
} from './helpers.ts';

const J = 'console-http';
const user = uniqueUser('qa-http');
let service: Service;
let browser: Browser;
let page: Page;
let problems: string[];
let roomId: string;

async function ok(name: string, values: Record<string, string> = {}): Promise<any> {
  const outcome = await runConsoleForm(page, name, values);
  if (outcome.state !== 'ok') throw new Error(`${name} showed an error: ${outcome.text}`);
  return outcome.value;
}
async function requestOf(name: string): Promise<any> {
  const text =
    (await page.getByRole('form', { name, exact: true }).locator('pre[data-request]').textContent()) ?? '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, `${service.base}/console.html?user=${user}`, {
    width: 1400,
    height: 1000,
  }));
  await until('the console widget to connect', async () =>
    (await page.locator('#state-connection').textContent()) === 'connected' ? true : undefined,
  );
  roomId = await until('the console widget’s room', async () => {
    const r = (await page.locator('#state-room').textContent())?.trim();
    return r && r !== '—' ? r : undefined;
  });
  await enterBotConversation(page);
});

closeJourney(J, () => ({ page, browser, service }));

describe('the QA console’s HTTP forms', () => {
  it('send each of the six bot-message variants to the console’s user, showing request and response', async () => {
    const list = messagesRegion(page);
    const cases: Array<[string, Record<string, string>, () => ReturnType<typeof list.getByText>]> = [
      [
        'http:sendText',
        { text: 'Texto desde la consola HTTP' },
        () => list.getByText('Texto desde la consola HTTP'),
      ],
      ['http:sendOptions', {}, () => list.getByRole('button', { name: /^Estado del pedido/ })],
      ['http:sendContacts', {}, () => list.getByText('Atención al cliente')],
      ['http:sendVoiceCall', {}, () => list.getByRole('button', { name: 'Llamar ahora' })],
      ['http:sendVideo', {}, () => list.getByText('Así se ve Charla')],
      ['http:sendContactInfoRequest', {}, () => list.getByRole('form', { name: /Tus datos de contacto/ })],
    ];
    for (const [form, values, rendered] of cases) {
      const result = await ok(form, values);
      expect(result, form).toMatchObject({ success: true });
      const request = await requestOf(form);
      expect(request.method).toBe('POST');
      expect(request.url).toBe(`${service.base}/v1/bots/${DEMO_BOT_ID}/messages`);
      expect(request.body.userId).toBe(user);
      expect(request.headers.authorization).toMatch(/^Basic /);
      await needInList(page, rendered(), `${form} rendered in the console’s widget`);
      const stored = (await roomMessages(service.app, roomId)).find((m) => m.id === result.messageId);
      expect(stored, `${form} stored in the user’s room`).toBeDefined();
    }
    await shot(page, J, 'bot-messages');
    // The message tracking form reads the last one sent by default, and any other by its id.
    const lastSent = await ok('http:getBotMessage');
    expect(lastSent).toMatchObject({ botId: DEMO_BOT_ID, userId: user });
    expect(['DELIVERED', 'DELIVERED_CHANNEL', 'DELIVERED_USER']).toContain(lastSent.status);
    expect((await requestOf('http:getBotMessage')).method).toBe('GET');
  });

  it('reject out-of-limit arguments in the client: nothing is sent, the error says which field', async () => {
    const eleven = JSON.stringify(Array.from({ length: 11 }, (_, i) => ({ title: `Opción ${i + 1}` })));
    const outcome = await runConsoleForm(page, 'http:sendOptions', { options: eleven });
    expect(outcome.state).toBe('error');
    expect(outcome.value).toMatchObject({ name: 'CharlaApiError', httpStatus: 0, code: 'E0400' });
    expect(Object.keys(outcome.value.body.validationError)).toEqual(['/buttons/options']);
    expect(await requestOf('http:sendOptions')).toMatch(/Nada enviado/);
  });

  it('post into the current room; the same id again is a duplicate and shows once', async () => {
    const first = await ok('http:postRoomMessages', { text: 'Mensaje externo de la consola' });
    expect(first.data.messageIds).toHaveLength(1);
    expect((await requestOf('http:postRoomMessages')).url).toBe(`${service.base}/v1/rooms/${roomId}/message`);
    await needInList(
      page,
      messagesRegion(page).getByText('Mensaje externo de la consola'),
      'the posted message in the widget',
    );
    const again = await ok('http:postRoomMessages', { repeat: 'true' });
    expect(again.data.duplicates).toEqual(first.data.messageIds);
    const stored = (await roomMessages(service.app, roomId)).filter(
      (m) => m['text'] === 'Mensaje externo de la consola',
    );
    expect(stored).toHaveLength(1);
    await ok('http:postRoomMessages', { repeat: 'false', type: 'IMAGE', text: 'Imagen externa' });
    await needInList(page, messagesRegion(page).getByText('Imagen externa'), 'the posted image’s caption');
  });

  it('create a widget and embed it live', async () => {
    const created = await ok('http:createWidget', {});
    expect(created).toMatchObject({ status: 1 });
    expect(created.data.ApiKey.key).toBeTruthy();
    const form = page.getByRole('form', { name: 'http:createWidget', exact: true });
    await form.getByRole('button', { name: 'Insertar en vivo' }).click();
    await until('a second widget on the page', async () =>
      (await page.locator('charla-widget').count()) === 2 ? true : undefined,
    );
    await need(
      page.getByRole('list', { name: 'Widgets insertados en vivo' }).getByText(created.data.ApiKey.key),
      'the embedded widget listed',
    );
    // It opened a session of its own with the new key.
    await until('the new widget’s session (its user in the new widget’s bot room)', async () => {
      const { rows } = await service.app.charla.db.query(
        'SELECT 1 FROM rooms r JOIN room_members m ON m.room_id = r.id WHERE r.bot_id = $1 AND m.user_id = $2',
        [created.data.Bot.id, user],
      );
      return rows.length ? true : undefined;
    });
    await shot(page, J, 'embedded-widget');
  });

  it('list campaigns, refresh a media address (422 E1126 over plain http), and read the OpenAPI document', async () => {
    const listed = await ok('http:listCampaigns', {});
    expect(listed.data.results.length).toBeGreaterThanOrEqual(5);
    expect(listed.data.pagination).toMatchObject({ page: 1, limit: 50 });
    await need(
      page.locator('#campaign-table tr[data-campaign-id="demo-campaign-scheduled"]'),
      'the seeded campaigns in the table',
    );

    const refresh = await runConsoleForm(page, 'http:refreshAsset', {});
    expect(refresh.state).toBe('error');
    expect(refresh.value).toMatchObject({ httpStatus: 422, code: 'E1126' });
    expect(refresh.value.body.error.key).toBe('SIGNED_URL_ERROR');
    const ttl = await runConsoleForm(page, 'http:refreshAsset', { ttl: '60' });
    expect(ttl.value).toMatchObject({ httpStatus: 0, code: 'E0400' });

    const doc = await ok('http:openapi');
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths).toEqual(
      expect.arrayContaining([
        '/v1/campaigns',
        '/v1/widget/create',
        '/v1/bots/{botId}/messages',
        '/v1/rooms/{roomId}/message',
        '/v1/external/assets/refresh',
      ]),
    );
  });

  it('ran under the strict CSP; the only errors are the refused calls', async () => {
    expect(await cspViolations(page)).toEqual([]);
    expect(unexpected(problems, [/status of 422/, /^http 422 POST /])).toEqual([]);
  });
});
