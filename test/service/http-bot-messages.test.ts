import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, snapshot, startServer, uid, type Server } from './helpers/http.ts';
import { VIDEO_ADDRESS_REFUSALS } from '../video-address-refusals.ts';

let server: Server;
let botId: string;
let callingBot: string;
let media: HttpServer;
let mediaBase: string;
const MB = 1024 * 1024;

beforeAll(async () => {
  // A local file host for the video HEAD check (allowLoopbackMedia is on in tests).
  media = createServer((req, res) => {
    const url = req.url ?? '/';
    const file = (type: string, size: number) => {
      res.writeHead(200, { 'content-type': type, 'content-length': String(size) });
      res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(Math.min(size, 1024)));
    };
    if (url === '/ok.mp4') return file('video/mp4', 1000);
    if (url === '/exact.mp4') return file('video/mp4', 16 * MB);
    if (url === '/over.mp4') return file('video/mp4', 16 * MB + 1);
    if (url === '/clip.3gp') return file('video/3gpp', 2000);
    if (url === '/clip2.3gp') return file('video/3gp; codecs=x', 2000);
    if (url === '/page') return file('text/html; charset=utf-8', 500);
    if (url === '/image.png') return file('image/png', 500);
    if (url === '/big.png') return file('image/png', 20 * MB);
    if (url === '/webm') return file('video/webm', 500);
    if (url === '/no-type') {
      res.writeHead(200, { 'content-length': '10' });
      return res.end();
    }
    if (url === '/redirect-ok') {
      res.writeHead(302, { location: '/ok.mp4' });
      return res.end();
    }
    if (url === '/redirect-out') {
      res.writeHead(302, { location: 'http://example.com/video.mp4' });
      return res.end();
    }
    if (url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      return res.end();
    }
    if (url === '/private') {
      res.writeHead(403);
      return res.end();
    }
    if (url === '/hang') return; // never answers
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  server = await startServer({ allowLoopbackMedia: true });
  botId = await createBot(server);
  callingBot = await createBot(server, { callingEnabled: true });
});
afterAll(async () => {
  await server?.close();
  media.closeAllConnections();
  await new Promise((r) => media.close(r));
});

const send = (body: unknown, bot = botId, headers: Record<string, string | undefined> = {}) =>
  call(server, 'POST', `/v1/bots/${encodeURIComponent(bot)}/messages`, { body, headers });

async function stored(messageId: string): Promise<Record<string, any> | undefined> {
  const { rows } = await server.app.charla.db.query<{ body: Record<string, any> }>(
    'SELECT body FROM messages WHERE id = $1',
    [messageId],
  );
  return rows[0]?.body;
}

const option = (i: number, extra: Record<string, unknown> = {}) => ({
  title: `Opción ${i}`,
  payload: `p${i}`,
  ...extra,
});

describe('POST /v1/bots/{botId}/messages', () => {
  it('sends a text into the room of the bot and the user, created on first need', async () => {
    const userId = uid('user');
    const res = await send({ type: 'text', text: 'Hola', userId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, messageId: expect.any(String) });
    const m = await stored(res.body.messageId);
    // Signed with the bot's name, as its flow messages are (the widget says who wrote it).
    const { rows } = await server.app.charla.db.query<{ name: string }>(
      'SELECT name FROM bots WHERE id = $1',
      [botId],
    );
    expect(rows[0]?.name).toBeTruthy();
    expect(m).toMatchObject({
      type: 'TEXT',
      text: 'Hola',
      by: 'bot',
      senderId: botId,
      senderNames: rows[0]?.name,
    });
    const second = await send({ type: 'text', text: 'Otra vez', userId, botId });
    expect(second.status).toBe(200);
    expect(second.body.messageId).not.toBe(res.body.messageId);
    expect((await stored(second.body.messageId))?.['roomId']).toBe(m?.['roomId']);
  });

  it('sends text with options as buttons: 1 and 10 options, title 24, description 72, default button text', async () => {
    const one = await send({
      type: 'text',
      text: 'Elige',
      userId: uid('u'),
      buttons: { options: [option(1)] },
    });
    expect(one.status).toBe(200);
    const m1 = await stored(one.body.messageId);
    expect(m1?.['interactive']).toEqual({ kind: 'options', buttonText: 'Opciones' });
    expect(m1?.['options']).toEqual([
      { type: 'postback', title: 'Opción 1', payload: { payload: 'p1', title: 'Opción 1' }, order: 0 },
    ]);
    const ten = await send({
      type: 'text',
      text: 'Elige',
      userId: uid('u'),
      buttons: {
        title: 'Menú',
        buttonText: { type: 'text', text: 'Ver' },
        options: Array.from({ length: 10 }, (_, i) =>
          option(i, { title: 't'.repeat(24), description: 'd'.repeat(72) }),
        ),
      },
    });
    expect(ten.status).toBe(200);
    const m10 = await stored(ten.body.messageId);
    expect(m10?.['options']).toHaveLength(10);
    expect(m10?.['options'][9]).toMatchObject({ order: 9, description: 'd'.repeat(72) });
    expect(m10?.['interactive']).toEqual({ kind: 'options', buttonText: 'Ver', title: 'Menú' });
  });

  it('answers 415 with the error body for a body that is not JSON, and changes nothing', async () => {
    const before = await snapshot(server);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await call(server, 'POST', `/v1/bots/${botId}/messages`, {
        raw: 'type=text&userId=u&text=hola',
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(415);
      expect(res.body).toMatchObject({
        status: 0,
        statusMessage: 'failed',
        error: { key: 'UNSUPPORTED_CONTENT_TYPE' },
      });
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('refuses options past their limits, naming the field, and changes nothing', async () => {
    const before = await snapshot(server);
    const u = uid('u');
    const cases: Array<[unknown, string]> = [
      [{ options: [] }, '/buttons/options'],
      [{ options: Array.from({ length: 11 }, (_, i) => option(i)) }, '/buttons/options'],
      [{ options: [option(1, { title: 't'.repeat(25) })] }, '/buttons/options/0/title'],
      [{ options: [option(1, { title: '' })] }, '/buttons/options/0/title'],
      [
        { options: [option(1), option(2, { description: 'd'.repeat(73) })] },
        '/buttons/options/1/description',
      ],
      [{ options: [{ payload: 'x' }] }, '/buttons/options/0/title'],
      [{}, '/buttons/options'],
      [{ options: [option(1)], buttonText: { type: 'image', text: 'x' } }, '/buttons/buttonText/type'],
      ['buttons', '/buttons'],
    ];
    for (const [buttons, field] of cases) {
      const res = await send({ type: 'text', text: 'x', userId: u, buttons });
      expect(res.status, JSON.stringify(buttons)).toBe(400);
      expect(Object.keys(res.body.validationError), JSON.stringify(buttons)).toContain(field);
      // The variant's fields only: nothing about contacts or mediaUrl.
      expect(Object.keys(res.body.validationError).some((k) => /contacts|mediaUrl|parameters/.test(k))).toBe(
        false,
      );
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('sends contacts as a card with a summary text; phones must be E.164', async () => {
    const contacts = [
      {
        name: { formatted_name: 'Ana Pérez', first_name: 'Ana', last_name: 'Pérez' },
        phones: [{ phone: '+14155552671', type: 'CELL', wa_id: '14155552671' }],
        emails: [{ email: 'ana@example.com', type: 'WORK' }],
        addresses: [{ street: 'Calle 1', city: 'Madrid', country_code: 'ES', type: 'HOME' }],
      },
      {},
    ];
    const res = await send({ type: 'contacts', contacts, userId: uid('u') });
    expect(res.status).toBe(200);
    const m = await stored(res.body.messageId);
    expect(m).toMatchObject({ type: 'TEXT', interactive: { kind: 'contacts', contacts } });
    expect(m?.['text']).toContain('Ana Pérez');
    // A contact with an address only is summed up by it (the summary is what previews show).
    const placeOnly = await send({
      type: 'contacts',
      contacts: [{ addresses: [{ street: 'Gran Vía 1', city: 'Madrid' }] }],
      userId: uid('u'),
    });
    expect((await stored(placeOnly.body.messageId))?.['text']).toBe('Gran Vía 1, Madrid');
    // A blank name is no name: the first name, else the phone, says who it is; never a blank bubble.
    const blankNames = await send({
      type: 'contacts',
      contacts: [
        { name: { formatted_name: '   ', first_name: 'Luz' } },
        { name: { formatted_name: ' \u200b ' }, phones: [{ phone: '+14155552671' }] },
        { name: { formatted_name: '   ' } },
      ],
      userId: uid('u'),
    });
    expect(blankNames.status).toBe(200);
    expect((await stored(blankNames.body.messageId))?.['text']).toBe('Luz, +14155552671, Contacto');
    // A name's direction controls do not reach the summary: "invoice\u202Efdp.exe" would read "invoiceexe.pdf".
    const disguised = await send({
      type: 'contacts',
      contacts: [{ name: { formatted_name: 'invoice\u202Efdp.exe', first_name: '\u2067Ana\u2069' } }],
      userId: uid('u'),
    });
    expect((await stored(disguised.body.messageId))?.['text']).toBe('invoicefdp.exe');
    const before = await snapshot(server);
    for (const [phone, ok] of [
      ['4155552671', false],
      ['+0155552671', false],
      ['+123456', false],
      ['+6834002', true],
      ['+1234567890123456', false],
      ['+12345678', true],
      ['+123456789012345', true],
    ] as const) {
      const r = await send({ type: 'contacts', contacts: [{ phones: [{ phone }] }], userId: 'same-user' });
      expect(r.status, phone).toBe(ok ? 200 : 400);
      if (!ok) expect(Object.keys(r.body.validationError)).toContain('/contacts/0/phones/0/phone');
    }
    void before;
    const bad = await send({ type: 'contacts', contacts: [], userId: 'u' });
    expect(Object.keys(bad.body.validationError)).toContain('/contacts');
    const email = await send({
      type: 'contacts',
      contacts: [{ emails: [{ email: 'not-an-email' }] }],
      userId: 'u',
    });
    expect(Object.keys(email.body.validationError)).toContain('/contacts/0/emails/0/email');
    // Internationalised addresses (RFC 6531) are addresses: local part and domain in any script.
    for (const address of ['ñandú@ejemplo.es', 'ana@ñandú.es', '用户@例子.广告']) {
      const r = await send({ type: 'contacts', contacts: [{ emails: [{ email: address }] }], userId: 'u' });
      expect(r.status, address).toBe(200);
      expect((await stored(r.body.messageId))?.['interactive']).toMatchObject({
        contacts: [{ emails: [{ email: address }] }],
      });
    }
  });

  it('sends a call button only for a bot with calling enabled', async () => {
    const body = {
      type: 'voice_call',
      header: 'Llámanos',
      text: 'Habla con un agente',
      parameters: { display_text: 'Llamar' },
      userId: uid('u'),
    };
    const ok = await send(body, callingBot);
    expect(ok.status).toBe(200);
    expect(await stored(ok.body.messageId)).toMatchObject({
      type: 'TEXT',
      text: 'Habla con un agente',
      interactive: { kind: 'voice_call', header: 'Llámanos', displayText: 'Llamar' },
    });
    const before = await snapshot(server);
    const off = await send({ ...body, userId: uid('u') }, botId);
    expect(off.status).toBe(403);
    expect(off.body.error).toMatchObject({ key: 'CALLING_NOT_ENABLED', code: 'E1204' });
    const missing = await send({ type: 'voice_call', text: 'x', parameters: {}, userId: 'u' }, callingBot);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.validationError)).toContain('/parameters/display_text');
    const noParams = await send({ type: 'voice_call', text: 'x', userId: 'u' }, callingBot);
    expect(Object.keys(noParams.body.validationError)).toEqual(['/parameters']);
    expect(await snapshot(server)).toEqual(before);
  });

  it('takes at most 20 contacts in one card: 20 are sent, 21 are a 400 naming /contacts', async () => {
    const card = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: { formatted_name: `Contacto ${i + 1}` } }));
    const twenty = await send({ type: 'contacts', contacts: card(20), userId: uid('u') });
    expect(twenty.status).toBe(200);
    const m = (await stored(twenty.body.messageId)) as { interactive: { contacts: unknown[] } };
    expect(m.interactive.contacts).toHaveLength(20);
    const over = await send({ type: 'contacts', contacts: card(21), userId: uid('u') });
    expect(over.status).toBe(400);
    expect(Object.keys(over.body.validationError)).toEqual(['/contacts']);
  });

  it('sends a contact information request', async () => {
    const res = await send({ type: 'contact_info_request', text: 'Déjanos tus datos', userId: uid('u') });
    expect(res.status).toBe(200);
    expect(await stored(res.body.messageId)).toMatchObject({
      type: 'TEXT',
      text: 'Déjanos tus datos',
      interactive: { kind: 'contact_info_request' },
    });
    const bad = await send({ type: 'contact_info_request', userId: 'u' });
    expect(Object.keys(bad.body.validationError)).toEqual(['/text']);
  });

  it('sends a video after checking the file with HEAD (mp4 and 3gp, up to 16 MB)', async () => {
    for (const path of ['/ok.mp4', '/exact.mp4', '/clip.3gp', '/clip2.3gp', '/redirect-ok']) {
      const res = await send({ type: 'video', mediaUrl: mediaBase + path, text: 'Mira', userId: uid('u') });
      expect(res.status, path).toBe(200);
      expect(await stored(res.body.messageId)).toMatchObject({
        type: 'VIDEO',
        mediaUrl: mediaBase + path,
        caption: 'Mira',
      });
    }
    const noCaption = await send({ type: 'video', mediaUrl: `${mediaBase}/ok.mp4`, userId: uid('u') });
    expect((await stored(noCaption.body.messageId))?.['caption']).toBeUndefined();
  });

  it('refuses videos that are unreachable, pages, too large or of another type (422), changing nothing', async () => {
    const before = await snapshot(server);
    const cases: Array<[string, string, string]> = [
      ['/missing.mp4', 'INVALID_MEDIA_URL', 'E1201'],
      ['/private', 'INVALID_MEDIA_URL', 'E1201'],
      ['/page', 'INVALID_MEDIA_URL', 'E1201'],
      ['/redirect-out', 'INVALID_MEDIA_URL', 'E1201'],
      ['/loop', 'INVALID_MEDIA_URL', 'E1201'],
      ['/over.mp4', 'MEDIA_TOO_LARGE', 'E1202'],
      ['/image.png', 'UNSUPPORTED_MEDIA_TYPE', 'E1203'],
      ['/big.png', 'UNSUPPORTED_MEDIA_TYPE', 'E1203'],
      ['/webm', 'UNSUPPORTED_MEDIA_TYPE', 'E1203'],
      ['/no-type', 'UNSUPPORTED_MEDIA_TYPE', 'E1203'],
    ];
    for (const [path, key, code] of cases) {
      const res = await send({ type: 'video', mediaUrl: mediaBase + path, userId: uid('u') });
      expect(res.status, path).toBe(422);
      expect(res.body.error, path).toMatchObject({ key, code });
    }
    // A name that does not resolve is unreachable.
    const nowhere = await send({
      type: 'video',
      mediaUrl: 'https://nothing.invalid/a.mp4',
      userId: uid('u'),
    });
    expect(nowhere.status).toBe(422);
    expect(nowhere.body.error.key).toBe('INVALID_MEDIA_URL');
    // A closed port is unreachable.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const gone = await send({ type: 'video', mediaUrl: `http://127.0.0.1:${port}/a.mp4`, userId: uid('u') });
    expect(gone.body.error.key).toBe('INVALID_MEDIA_URL');
    expect(await snapshot(server)).toEqual(before);
  });

  it('gives up on a host that does not answer (timeout) with INVALID_MEDIA_URL', async () => {
    const res = await send({ type: 'video', mediaUrl: `${mediaBase}/hang`, userId: uid('u') });
    expect(res.status).toBe(422);
    expect(res.body.error.key).toBe('INVALID_MEDIA_URL');
  }, 20_000);

  it('refuses an invalid video address with 422 INVALID_MEDIA_URL naming the field, before fetching anything', async () => {
    const before = await snapshot(server);
    for (const [mediaUrl, reason] of [
      ...VIDEO_ADDRESS_REFUSALS,
      // Hosts only the service judges: private, link-local, the cloud metadata address.
      ['https://10.0.0.1/a.mp4', 'must be a public https address'],
      ['https://192.168.1.10/a.mp4', 'must be a public https address'],
      ['https://169.254.169.254/latest/meta-data', 'must be a public https address'],
    ]) {
      const res = await send({ type: 'video', mediaUrl, userId: 'u' });
      expect(res.status, mediaUrl).toBe(422);
      expect(res.body.error, mediaUrl).toMatchObject({ key: 'INVALID_MEDIA_URL', code: 'E1201' });
      expect(res.body.validationError, mediaUrl).toEqual({ '/mediaUrl': reason });
      expect(res.body.message, mediaUrl).toContain('/mediaUrl');
      expect(res.body.message, mediaUrl).toContain(reason);
    }
    // No address, or no string: the body's shape, 400.
    for (const mediaUrl of [undefined, null, 5, ['https://example.com/a.mp4'], { href: 'x' }]) {
      const res = await send({ type: 'video', mediaUrl, userId: 'u' });
      expect(res.status, JSON.stringify(mediaUrl)).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError), JSON.stringify(mediaUrl)).toEqual(['/mediaUrl']);
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('refuses loopback media when the configuration does not allow it (422 INVALID_MEDIA_URL)', async () => {
    const strict = await startServer({ allowLoopbackMedia: false });
    try {
      const bot = await createBot(strict);
      const res = await call(strict, 'POST', `/v1/bots/${bot}/messages`, {
        body: { type: 'video', mediaUrl: `${mediaBase}/ok.mp4`, userId: 'u' },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.key).toBe('INVALID_MEDIA_URL');
      expect(res.body.validationError).toEqual({ '/mediaUrl': 'must be a public https address' });
    } finally {
      await strict.close();
    }
  }, 120_000);

  it('holds a video caption to 1,024 characters (code points), not blank', async () => {
    const video = (text: unknown) => ({
      type: 'video',
      mediaUrl: `${mediaBase}/ok.mp4`,
      text,
      userId: uid('u'),
    });
    const longest = '😀'.repeat(1024);
    const ok = await send(video(longest));
    expect(ok.status, ok.text).toBe(200);
    expect((await stored(ok.body.messageId))?.['caption']).toBe(longest);
    const before = await snapshot(server);
    for (const text of ['😀'.repeat(1025), 'x'.repeat(1025), '', '   ', '\n\t']) {
      const what = `${JSON.stringify(text.slice(0, 4))} (${[...text].length} code points)`;
      const res = await send(video(text));
      expect(res.status, what).toBe(400);
      expect(res.body.error.key).toBe('VALIDATION_ERROR');
      expect(Object.keys(res.body.validationError), what).toEqual(['/text']);
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('needs type and userId; unknown type, mismatched botId, unknown bot and no credentials are refused', async () => {
    const before = await snapshot(server);
    const cases: Array<[unknown, number, string[]]> = [
      [{ text: 'x', userId: 'u' }, 400, ['/type']],
      [{ type: 'fax', text: 'x', userId: 'u' }, 400, ['/type']],
      [{ type: 'text', text: 'x' }, 400, ['/userId']],
      [{ type: 'text', userId: 'u' }, 400, ['/text']],
      [{ type: 'text', text: '', userId: 'u' }, 400, ['/text']],
      [{ type: 'text', text: 'x'.repeat(4097), userId: 'u' }, 400, ['/text']],
      [{ type: 'text', text: 5, userId: 'u' }, 400, ['/text']],
      [{ type: 'text', text: 'x', userId: 'u', botId: 'another' }, 400, ['/botId']],
      [{ type: 'video', userId: 'u' }, 400, ['/mediaUrl']],
      [null, 400, ['/']],
      [[1, 2], 400, ['/']],
    ];
    for (const [body, status, fields] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      for (const f of fields)
        expect(Object.keys(res.body.validationError), JSON.stringify(body)).toContain(f);
    }
    const text4096 = await send({ type: 'text', text: 'x'.repeat(4096), userId: uid('u') });
    expect(text4096.status).toBe(200);
    const after4096 = await snapshot(server);
    const unknown = await send({ type: 'text', text: 'x', userId: 'u' }, uid('nobot'));
    expect(unknown.status).toBe(404);
    const noAuth = await send({ type: 'text', text: 'x', userId: 'u' }, botId, { authorization: undefined });
    expect(noAuth.status).toBe(401);
    const token = await send({ type: 'text', text: 'x', userId: 'u' }, botId, {
      authorization: 'Basic demo-company-token',
    });
    expect(token.status).toBe(401);
    expect(await snapshot(server)).toEqual(after4096);
    expect(before).not.toEqual(after4096);
  });
});

describe('POST /v1/bots/{botId}/messages with the caller’s own id', () => {
  const count = async (id: string) =>
    Number(
      (
        await server.app.charla.db.query<{ n: string | number }>(
          'SELECT count(*) AS n FROM messages WHERE id = $1',
          [id],
        )
      ).rows[0]?.n,
    );

  it('a retry of the request (at once, or later, any case of the UUID) stores the message once and answers its id', async () => {
    const userId = uid('user');
    const id = randomUUID();
    const body = {
      id,
      userId,
      type: 'text',
      text: '¿Qué te apetece?',
      buttons: { options: [option(1), option(2, { description: 'Masa madre' })] },
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(body)));
    expect(answers.map((a) => [a.status, a.body.messageId])).toEqual(
      Array.from({ length: 5 }, () => [200, id]),
    );
    const later = await send({ ...body, id: id.toUpperCase() });
    expect([later.status, later.body.messageId]).toEqual([200, id]);
    expect(await count(id)).toBe(1);
    expect(await stored(id)).toMatchObject({
      type: 'TEXT',
      text: '¿Qué te apetece?',
      by: 'bot',
      senderId: botId,
    });
    // Without an id, each send is a message of its own, as before.
    const a = await send({ userId, type: 'text', text: 'Hola' });
    const b = await send({ userId, type: 'text', text: 'Hola' });
    expect(a.body.messageId).not.toBe(b.body.messageId);
  });

  it('a retry is answered from what was stored: the bot’s calling turned off since does not refuse it', async () => {
    const bot = await createBot(server, { callingEnabled: true });
    const id = randomUUID();
    const body = {
      id,
      userId: uid('user'),
      type: 'voice_call',
      text: 'Llámanos',
      parameters: { display_text: 'Llamar' },
    };
    expect((await send(body, bot)).status).toBe(200);
    await server.app.charla.db.query('UPDATE bots SET calling_enabled = false WHERE id = $1', [bot]);
    const retry = await send(body, bot);
    expect([retry.status, retry.body.messageId]).toEqual([200, id]);
    // A new message is checked as ever.
    expect((await send({ ...body, id: randomUUID() }, bot)).status).toBe(403);
  });

  it('refuses the id of another message (other content, options, user or bot) and an id that is no UUID; changes nothing', async () => {
    const userId = uid('user');
    const id = randomUUID();
    const body = { id, userId, type: 'text', text: 'Hola', buttons: { options: [option(1)] } };
    expect((await send(body)).status).toBe(200);
    const before = await snapshot(server);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...body, text: 'Adiós' }, botId],
      [{ ...body, buttons: { options: [option(2)] } }, botId],
      [{ ...body, userId: uid('other') }, botId],
      [body, callingBot],
      [{ ...body, id: 'mensaje-1' }, botId],
    ];
    for (const [patch, bot] of cases) {
      const res = await send(patch, bot);
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(Object.keys(res.body.validationError), JSON.stringify(patch)).toEqual(['/id']);
    }
    expect(await snapshot(server)).toEqual(before);
    // A campaign's message takes none: each recipient's copy has its own.
    const campaign = await call(server, 'POST', '/v1/campaigns', {
      body: {
        name: 'x',
        elementName: 'x',
        botId,
        recipients: [userId],
        message: { id, type: 'text', text: 'Hola' },
      },
    });
    expect(campaign.status).toBe(400);
    expect(Object.keys(campaign.body.validationError)).toEqual(['/message/id']);
  });
});

describe('POST /v1/campaigns: its message is held to the same rules as a direct send', () => {
  const campaign = (message: Record<string, unknown>, bot = botId) =>
    call(server, 'POST', '/v1/campaigns', {
      body: {
        name: 'Vídeo',
        elementName: 'video',
        botId: bot,
        recipients: [uid('r')],
        message,
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });

  it('refuses an invalid video address with 422 INVALID_MEDIA_URL at /message/mediaUrl, storing nothing', async () => {
    const before = await snapshot(server);
    for (const [mediaUrl, reason] of [
      ['http://example.com/a.mp4', 'must be an https address'],
      ['https://192.168.1.1/a.mp4', 'must be a public https address'],
      ['https://user:pass@example.com/a.mp4', 'must not carry credentials'],
      ['not a url', 'must be an absolute https:// address'],
    ]) {
      const res = await campaign({ type: 'video', mediaUrl });
      expect(res.status, mediaUrl).toBe(422);
      expect(res.body.error, mediaUrl).toMatchObject({ key: 'INVALID_MEDIA_URL', code: 'E1201' });
      expect(res.body.validationError, mediaUrl).toEqual({ '/message/mediaUrl': reason });
      expect(res.body.message, mediaUrl).toContain('/message/mediaUrl');
    }
    const unreachable = await campaign({ type: 'video', mediaUrl: `${mediaBase}/missing.mp4` });
    expect(unreachable.status).toBe(422);
    expect(unreachable.body.error.key).toBe('INVALID_MEDIA_URL');
    const missing = await campaign({ type: 'video' });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.validationError)).toEqual(['/message/mediaUrl']);
    expect(await snapshot(server)).toEqual(before);
    const ok = await campaign({ type: 'video', mediaUrl: `${mediaBase}/ok.mp4`, text: 'Mira' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.status).toBe('SCHEDULED');
  });

  it('refuses a message botId other than the campaign’s with 400 at /message/botId; the same one is taken', async () => {
    const other = await createBot(server);
    const before = await snapshot(server);
    const res = await campaign({ type: 'text', text: 'Hola', botId: other });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.key).toBe('VALIDATION_ERROR');
    expect(res.body.validationError).toEqual({ '/message/botId': 'must match the botId of the campaign' });
    expect(await snapshot(server)).toEqual(before);
    const same = await campaign({ type: 'text', text: 'Hola', botId });
    expect(same.status, same.text).toBe(200);
  });

  it('holds a video caption to 1,024 characters, not blank, at /message/text', async () => {
    const before = await snapshot(server);
    for (const text of ['x'.repeat(1025), '  ']) {
      const res = await campaign({ type: 'video', mediaUrl: `${mediaBase}/ok.mp4`, text });
      expect(res.status, text.slice(0, 10)).toBe(400);
      expect(Object.keys(res.body.validationError)).toEqual(['/message/text']);
    }
    expect(await snapshot(server)).toEqual(before);
    const longest = await campaign({
      type: 'video',
      mediaUrl: `${mediaBase}/ok.mp4`,
      text: 'x'.repeat(1024),
    });
    expect(longest.status, longest.text).toBe(200);
  });
});
