import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePath, type Message } from '../../types/index.ts';
import { makePng } from '../../server/live/assets.ts';
import { liveOf } from '../../server/live/index.ts';
import { collect, sendText, startLive, waitFor, type LiveHarness } from './helpers/live.ts';

/**
 * The OpenAPI document describes what each widget API route answers (server/openapi.ts); the
 * routes serialize without those schemas, so this checks real answers against the document.
 */
let h: LiveHarness;
let apiKey: string;
let doc: { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

beforeAll(async () => {
  h = await startLive();
  await h.insertBot('demo-bot', 'Charla Demo Bot');
  ({ apiKey } = await h.createWidget({ botId: 'demo-bot', type: 'group' }));
  doc = await (await fetch(h.baseUrl + ROUTES.openapi)).json();
});
afterAll(async () => {
  await h?.close();
});

/** The document's 200 schema of `method route`. */
function documented(method: string, route: string): object {
  const path = route.replace(/:(\w+)/g, '{$1}');
  const ok = doc.paths[path]?.[method.toLowerCase()]?.responses['200'];
  expect(ok?.description, `${method} ${path}`).not.toBe('Default Response');
  const schema = ok?.content?.['application/json']?.schema;
  expect(schema, `${method} ${path} documents its answer`).toBeTypeOf('object');
  return schema;
}

/** `res` is a 200 whose body the document's schema for the route takes; the body. */
async function answers(res: Response, method: string, route: string): Promise<any> {
  const body = await res.json();
  expect(res.status, `${method} ${route}: ${JSON.stringify(body)}`).toBe(200);
  const check = ajv.compile(documented(method, route));
  expect(check(body) ? [] : check.errors, `${method} ${route}`).toEqual([]);
  return body;
}

describe('the OpenAPI document and the widget API', () => {
  it('documents every widget route’s answer, and what each really answers fits it', async () => {
    const ana = `ana-${randomUUID()}`;
    const bea = `bea-${randomUUID()}`;
    const res = await fetch(h.baseUrl + ROUTES.widgetSession, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey, userId: ana, userNames: 'Ana' }),
    });
    const session = await answers(res, 'POST', ROUTES.widgetSession);
    const token: string = session.token;
    await h.session(apiKey, bea, { userNames: 'Bea' });
    await liveOf(h.app).flows.idle();

    // Messages of several kinds in the bot room: the visitor's text and the bot's menu (options).
    const socket = await h.connect(token);
    const got: Message[] = collect(socket);
    await sendText(socket, session.botRoomId, 'hola');
    await waitFor(() => got.some((m) => (m.options?.length ?? 0) > 0), 5000, 'the bot’s menu');
    socket.disconnect();

    const call = (method: string, route: string, params: Record<string, string>, body?: unknown) =>
      h.call(method, routePath(route, params), { token, body });
    await answers(await call('GET', ROUTES.widgetRooms, {}), 'GET', ROUTES.widgetRooms);
    const room = await answers(
      await call('POST', ROUTES.widgetDirectRoom, {}, { id: bea }),
      'POST',
      ROUTES.widgetDirectRoom,
    );
    const roomId: string = room.id;
    await answers(await call('GET', ROUTES.widgetRoom, { roomId }), 'GET', ROUTES.widgetRoom);
    await answers(await call('GET', ROUTES.widgetRoomMembers, { roomId }), 'GET', ROUTES.widgetRoomMembers);
    const cai = `cai-${randomUUID()}`;
    await answers(
      await call('POST', ROUTES.widgetRoomMembers, { roomId }, { member: { id: cai, names: 'Cai' } }),
      'POST',
      ROUTES.widgetRoomMembers,
    );
    await answers(
      await call(
        'POST',
        ROUTES.widgetRoomMembersBulk,
        { roomId },
        { members: [{ referenceId: `dan-${randomUUID()}` }] },
      ),
      'POST',
      ROUTES.widgetRoomMembersBulk,
    );
    await answers(
      await call('POST', ROUTES.widgetRoomLeave, { roomId }, { userId: cai }),
      'POST',
      ROUTES.widgetRoomLeave,
    );
    await answers(
      await call('POST', ROUTES.widgetRoomJoin, { roomId }, { userId: ana }),
      'POST',
      ROUTES.widgetRoomJoin,
    );
    const page = await answers(
      await call('GET', ROUTES.widgetRoomMessages, { roomId: session.botRoomId }),
      'GET',
      ROUTES.widgetRoomMessages,
    );
    expect(page.messages.map((m: Message) => m.type)).toContain('TEXT');
    expect(page.messages.some((m: Message) => (m.options?.length ?? 0) > 0)).toBe(true);
    await answers(
      await call(
        'POST',
        ROUTES.widgetFlow,
        { flowId: 'order_status' },
        { storedParams: { orderId: 'A-42' } },
      ),
      'POST',
      ROUTES.widgetFlow,
    );

    const form = new FormData();
    form.append('roomId', roomId);
    form.append('file', new Blob([new Uint8Array(makePng(8))], { type: 'image/png' }), 'punto.png');
    const uploaded = await answers(
      await fetch(h.baseUrl + ROUTES.widgetUpload, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      }),
      'POST',
      ROUTES.widgetUpload,
    );
    await answers(
      await call('POST', ROUTES.widgetAssetsRefresh, {}, { resourceUrl: uploaded.mediaUrl }),
      'POST',
      ROUTES.widgetAssetsRefresh,
    );
  }, 60_000);

  it('the schemas are not so loose that anything fits: a room without its id does not', () => {
    const check = ajv.compile(documented('GET', ROUTES.widgetRoom));
    expect(check({ name: 'x' })).toBe(false);
    expect(ajv.compile(documented('POST', ROUTES.widgetUpload))({ mediaUrl: 1 })).toBe(false);
  });

  it('lists 429 where a new user of the hour is taken (a session, a room or a member the service has not seen)', () => {
    for (const [path, method] of [
      ['/v1/widget/session', 'post'],
      ['/v1/widget/rooms/direct', 'post'],
      ['/v1/widget/rooms/{roomId}/members', 'post'],
      ['/v1/widget/rooms/{roomId}/members/bulk', 'post'],
      ['/v1/widget/rooms/{roomId}/join', 'post'],
    ] as const)
      expect(Object.keys(doc.paths[path]![method]!.responses), `${method} ${path}`).toContain('429');
  });
});
