/**
 * A 400 tells a business backend what to send instead, in words: the allowed
 * values of an enumeration, the field that is not allowed, the fields of
 * which one is needed; never the validator's own jargon ("must be equal to
 * constant", "schema is false", "must match a schema in anyOf").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, inSeconds, startServer, type Server } from './helpers/http.ts';

let server: Server;
let botId: string;
let campaignId: string;

beforeAll(async () => {
  server = await startServer();
  botId = await createBot(server);
  const res = await call(server, 'POST', '/v1/campaigns', {
    body: {
      name: 'n',
      elementName: 'e',
      botId,
      recipients: ['u'],
      message: { type: 'text', text: 'hola' },
      scheduledAt: inSeconds(3600),
    },
  });
  campaignId = res.body.data.id;
});
afterAll(async () => {
  await server?.close();
});

const JARGON = /equal to constant|schema is false|match a schema in anyOf/;
const list = (query: string) =>
  call(server, 'GET', `/v1/campaigns?botId=${botId}&startAt=2020-01-01&endAt=2100-01-01${query}`);

function expectWords(res: { status: number; body: any }, expected: Record<string, string>) {
  expect(res.status).toBe(400);
  expect(res.body.validationError).toEqual(expected);
  expect(JSON.stringify(res.body)).not.toMatch(JARGON);
}

describe('validation messages', () => {
  it('an enumeration names its values', async () => {
    expectWords(await list('&status=scheduled'), {
      'querystring:/status': 'must be one of COMPLETED, PENDING, IN_PROGRESS, SCHEDULED',
    });
    expectWords(
      await call(server, 'POST', '/v1/widget/create', {
        body: { bot: {}, widget: { properties: { type: 'GROUP' } } },
      }),
      { '/widget/properties/type': 'must be one of normal, group' },
    );
  });

  it('a single allowed value is quoted', async () => {
    expectWords(
      await call(server, 'POST', `/v1/bots/${botId}/messages`, {
        body: {
          type: 'text',
          userId: 'u',
          text: 'x',
          buttons: { buttonText: { type: 'url', text: 'Menú' }, options: [{ title: 'a' }] },
        },
      }),
      { '/buttons/buttonText/type': 'must be "text"' },
    );
  });

  it('a field that is not allowed is named once, by the object that does not take it', async () => {
    expectWords(
      await call(server, 'POST', '/v1/widget/create', {
        body: { bot: { colour: 'red', size: 2 }, widget: {} },
      }),
      { '/bot': 'does not take colour, size' },
    );
  });

  it('an update with neither name nor scheduledAt says one of them is needed', async () => {
    expectWords(await call(server, 'PUT', `/v1/campaigns/${campaignId}`, { body: { status: 'CANCELLED' } }), {
      '/': 'must have at least one of name, scheduledAt',
    });
  });

  it('a query parameter given twice is named as such', async () => {
    expectWords(await list('&limit=5&limit=6'), { 'querystring:/limit': 'must be given once' });
    expectWords(
      await call(server, 'GET', `/v1/campaigns?botId=${botId}&botId=x&startAt=2020-01-01&endAt=2100-01-01`),
      { 'querystring:/botId': 'must be given once' },
    );
  });

  it('a page of many digits is an integer too: past the last page it is empty, past the largest it says so', async () => {
    const far = await list('&page=1000000000');
    expect(far.status).toBe(200);
    expect(far.body.data.results).toEqual([]);
    expect(far.body.data.pagination).toMatchObject({ page: 1000000000, offset: 9999999990 });
    expectWords(await list('&page=9007199254740991'), { 'querystring:/page': 'must be <= 1000000000' });
    expectWords(await list('&page=123456789012345678901234567890'), {
      'querystring:/page': 'must be <= 1000000000',
    });
  });
});
