/**
 * The QA console: a form for every widgetInstance method and for every HTTP
 * operation (through the `charla/api` client), each showing the request and
 * the result or error. Campaign rows poll so their status and counters move
 * while the scheduler sends.
 *
 * A development tool: it calls the server-side API from the browser with the
 * demo's Basic credentials, which a real site must never do.
 */
import { createWidget, type WidgetInstance } from '../../src/index.ts';
import { createClient, type Campaign, type CharlaClient } from '../../src/api/index.ts';
import { DEMO_BOT_ID, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_NORMAL_API_KEY } from './config.ts';
import { byId, h, pretty } from './dom.ts';
import { json, mountOperation, optional, optionalJson, str, type Operation } from './forms.ts';

/* ---------------- the console's widget ---------------- */

const params = new URLSearchParams(location.search);
const USER_KEY = 'charla-console-user';
function defaultUserId(): string {
  const given = params.get('user');
  if (given) return given;
  let id = localStorage.getItem(USER_KEY);
  if (!id) {
    id = `qa-${Math.random().toString(36).slice(2, 8)}`;
    localStorage.setItem(USER_KEY, id);
  }
  return id;
}

let widget: WidgetInstance | null = null;
const unsubscribers: (() => void)[] = [];
let eventCount = 0;

function current(): WidgetInstance {
  if (!widget) throw new Error('No widget: press "Crear y conectar" first.');
  return widget;
}
const currentRoom = (): string | null => widget?.stores.$currentRoomId.get() ?? null;
const currentUser = (): string | null => widget?.userId ?? null;

function logEvent(name: string, detail: unknown): void {
  eventCount += 1;
  byId('event-count').textContent = String(eventCount);
  const list = byId('event-log');
  const text = pretty(detail);
  list.append(
    h(
      'li',
      {},
      `${new Date().toLocaleTimeString()} ${name} ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`,
    ),
  );
  while (list.childElementCount > 200) list.firstElementChild?.remove();
}

function startWidget(apiKey: string, userId: string, userNames: string): void {
  stopWidget();
  const w = createWidget({
    apiKey,
    baseUrl: location.origin,
    userId,
    userNames: userNames || undefined,
    language: 'es',
  });
  widget = w;
  (window as unknown as { consoleWidget: WidgetInstance | null }).consoleWidget = w;
  const s = w.stores;
  unsubscribers.push(
    s.$connection.subscribe((v) => (byId('state-connection').textContent = v)),
    s.$open.subscribe((v) => (byId('state-open').textContent = String(v))),
    s.$currentRoomId.subscribe((v) => (byId('state-room').textContent = v ?? '—')),
    s.$unreadTotal.subscribe((v) => (byId('state-unread').textContent = String(v))),
  );
  byId('state-user').textContent = w.userId;
  for (const name of [
    'open',
    'close',
    'message',
    'addedToRoom',
    'removedFromRoom',
    'connection',
    'error',
  ] as const) {
    const handler = (detail: unknown) => logEvent(name, detail);
    w.on(name, handler);
  }
  w.connect().catch((error: unknown) =>
    logEvent('connect failed', error instanceof Error ? error.message : error),
  );
}

function stopWidget(): void {
  for (const u of unsubscribers.splice(0)) u();
  widget?.destroy();
  widget = null;
  (window as unknown as { consoleWidget: WidgetInstance | null }).consoleWidget = null;
  for (const id of ['state-connection', 'state-open', 'state-user', 'state-room', 'state-unread'])
    byId(id).textContent = '—';
}

const sessionForm = byId<HTMLFormElement>('session-form');
byId<HTMLInputElement>('session-api-key').value = params.get('apiKey') ?? DEMO_NORMAL_API_KEY;
byId<HTMLInputElement>('session-user-id').value = defaultUserId();
byId<HTMLInputElement>('session-user-names').value = params.get('names') ?? 'QA Tester';
sessionForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const v = (id: string) => byId<HTMLInputElement>(id).value.trim();
  startWidget(v('session-api-key'), v('session-user-id'), v('session-user-names'));
});
byId('session-destroy').addEventListener('click', () => stopWidget());

/* ---------------- widgetInstance methods ---------------- */

/** What a void method changed, so its form shows an outcome. */
function snapshot(w: WidgetInstance): Record<string, unknown> {
  return {
    returned: 'undefined (void)',
    open: w.stores.$open.get(),
    currentRoomId: w.stores.$currentRoomId.get(),
    connection: w.stores.$connection.get(),
  };
}

const roomField = { name: 'roomId', placeholder: '(sala actual)', fallback: currentRoom };
const userField = { name: 'userId', placeholder: '(usuario del widget)', fallback: currentUser };
const CONTACTS_EXAMPLE = pretty([
  { id: 'carol', names: 'Carol Díaz', color: '#059669' },
  { id: 'dave', names: 'Dave Pérez', color: '#d97706' },
]);
const CONTACT_EXAMPLE = pretty({ id: 'erin', names: 'Erin Gómez', color: '#7c3aed' });

const voidOp = (id: string, doc: string, call: (w: WidgetInstance) => void): Operation => ({
  id,
  title: `${id}()`,
  doc,
  run: () => {
    const w = current();
    call(w);
    return snapshot(w);
  },
});

const widgetOps: Operation[] = [
  voidOp('open', 'Abre el widget y habilita el botón si estaba deshabilitado.', (w) => w.open()),
  {
    id: 'close',
    title: 'close(disable?)',
    doc: 'Cierra el widget; con disable, además deshabilita el botón.',
    fields: [{ name: 'disable', kind: 'checkbox' }],
    run: (v) => {
      const w = current();
      w.close(v['disable'] === true);
      return snapshot(w);
    },
  },
  voidOp('enable', 'Habilita el botón de inicio.', (w) => w.enable()),
  {
    id: 'connect',
    title: 'connect()',
    doc: 'Abre la sesión y la conexión en vivo (promesa); de nuevo tras disconnect().',
    run: async () => {
      const w = current();
      await w.connect();
      return snapshot(w);
    },
  },
  voidOp(
    'disconnect',
    'Cierra la conexión en vivo; lo no enviado espera en la bandeja de salida hasta connect().',
    (w) => w.disconnect(),
  ),
  {
    id: 'setFlow',
    title: 'setFlow(flowId, storedParams?)',
    doc: 'Lanza un flujo del bot, opcionalmente con parámetros.',
    fields: [
      { name: 'flowId', value: 'greeting' },
      { name: 'storedParams', kind: 'json', placeholder: '{"plan": "pro"}' },
    ],
    run: (v) => current().setFlow(str(v, 'flowId'), optionalJson<Record<string, string>>(v, 'storedParams')),
  },
  {
    id: 'getRoom',
    title: 'getRoom(roomId)',
    fields: [roomField],
    run: (v) => current().getRoom(str(v, 'roomId')),
  },
  {
    id: 'getMembers',
    title: 'getMembers(roomId)',
    fields: [roomField],
    run: (v) => current().getMembers(str(v, 'roomId')),
  },
  {
    id: 'setCurrentRoom',
    title: 'setCurrentRoom(roomId)',
    fields: [{ name: 'roomId', placeholder: 'id de una sala del usuario (getRoom, openRoomWithUser)' }],
    run: (v) => {
      const w = current();
      // A void method: a bad argument is reported on the error event (it does not throw), so the
      // console listens for the call's own report and shows it as the form's error.
      let refused: unknown;
      const onError = (d: { error: unknown; operation: string }) => {
        if (d.operation === 'setCurrentRoom') refused = d.error;
      };
      w.on('error', onError);
      try {
        w.setCurrentRoom(str(v, 'roomId'));
      } finally {
        w.off('error', onError);
      }
      if (refused) throw refused;
      return snapshot(w);
    },
  },
  {
    id: 'joinRoom',
    title: 'joinRoom(roomId, userId)',
    fields: [roomField, userField],
    run: (v) => current().joinRoom(str(v, 'roomId'), str(v, 'userId')),
  },
  {
    id: 'leaveRoom',
    title: 'leaveRoom(roomId, userId)',
    doc: 'Saca a userId de la sala. Con el usuario del widget en su sala del bot, el widget se queda sin ella.',
    // Not the widget's own user by default: leaving its bot room leaves the console without a conversation.
    fields: [roomField, { ...userField, value: 'dave' }],
    run: (v) => current().leaveRoom(str(v, 'roomId'), str(v, 'userId')),
  },
  {
    id: 'openRoomWithUser',
    title: 'openRoomWithUser({ id, names })',
    fields: [
      { name: 'id', value: 'alice' },
      { name: 'names', value: 'Alice Martín' },
    ],
    run: (v) =>
      current().openRoomWithUser({
        id: str(v, 'id'),
        ...(optional(v, 'names') ? { names: str(v, 'names') } : {}),
      }),
  },
  voidOp('hideHomeMenu', 'Pasa a la vista de chat (nada si ya está en ella).', (w) => w.hideHomeMenu()),
  voidOp('showHomeMenu', 'Pasa al menú de inicio (nada si ya está en él).', (w) => w.showHomeMenu()),
  {
    id: 'setContacts',
    title: 'setContacts(contacts)',
    fields: [{ name: 'contacts', kind: 'json', value: CONTACTS_EXAMPLE }],
    run: (v) => {
      current().setContacts(json(v, 'contacts'));
      return 'ok';
    },
  },
  {
    id: 'addContacts',
    title: 'addContacts(contacts)',
    fields: [{ name: 'contacts', kind: 'json', value: pretty([{ id: 'bob', names: 'Bob Ruiz' }]) }],
    run: (v) => {
      current().addContacts(json(v, 'contacts'));
      return 'ok';
    },
  },
  {
    id: 'addContact',
    title: 'addContact(contact)',
    fields: [{ name: 'contact', kind: 'json', value: CONTACT_EXAMPLE }],
    run: (v) => {
      current().addContact(json(v, 'contact'));
      return 'ok';
    },
  },
  voidOp('startLoading', 'Muestra el cargador de la lista de contactos.', (w) => w.startLoading()),
  voidOp('stopLoading', 'Oculta el cargador de la lista de contactos.', (w) => w.stopLoading()),
  {
    id: 'setContactsForRoom',
    title: 'setContactsForRoom(contacts)',
    fields: [{ name: 'contacts', kind: 'json', value: CONTACTS_EXAMPLE }],
    run: (v) => {
      current().setContactsForRoom(json(v, 'contacts'));
      return 'ok';
    },
  },
  {
    id: 'addRoomContacts',
    title: 'addRoomContacts(contacts)',
    fields: [{ name: 'contacts', kind: 'json', value: pretty([{ id: 'bob', names: 'Bob Ruiz' }]) }],
    run: (v) => {
      current().addRoomContacts(json(v, 'contacts'));
      return 'ok';
    },
  },
  {
    id: 'addRoomContact',
    title: 'addRoomContact(contact)',
    fields: [{ name: 'contact', kind: 'json', value: CONTACT_EXAMPLE }],
    run: (v) => {
      current().addRoomContact(json(v, 'contact'));
      return 'ok';
    },
  },
  voidOp('startLoadingForRoom', 'Cargador de los contactos de la sala.', (w) => w.startLoadingForRoom()),
  voidOp('stopLoadingForRoom', 'Oculta el cargador de los contactos de la sala.', (w) =>
    w.stopLoadingForRoom(),
  ),
  voidOp('disableInputs', 'Deshabilita texto, adjuntos y micrófono.', (w) => w.disableInputs()),
  voidOp('enableInputs', 'Vuelve a habilitarlos.', (w) => w.enableInputs()),
  {
    id: 'addMember',
    title: 'addMember(contact | id, roomId)',
    doc: 'Un id, o un Contact en JSON.',
    fields: [{ name: 'member', kind: 'textarea', value: 'carol' }, roomField],
    run: (v) => {
      const raw = str(v, 'member').trim();
      const member = raw.startsWith('{') ? json<{ id: string }>(v, 'member') : raw;
      return current().addMember(member, str(v, 'roomId'));
    },
  },
  {
    id: 'addMembers',
    title: 'addMembers(roomId, members)',
    fields: [
      roomField,
      {
        name: 'members',
        kind: 'json',
        value: pretty([{ referenceId: 'dave', names: 'Dave Pérez', memberType: 'Client' }]),
      },
    ],
    run: (v) => current().addMembers(str(v, 'roomId'), json(v, 'members')),
  },
  {
    id: 'getMessages',
    title: 'getMessages({ roomId, limit?, id? })',
    fields: [
      roomField,
      { name: 'limit', kind: 'number', placeholder: '20' },
      { name: 'id', placeholder: '(las últimas)' },
    ],
    run: (v) => {
      const limit = optional(v, 'limit');
      const id = optional(v, 'id');
      return current().getMessages({
        roomId: str(v, 'roomId'),
        ...(limit ? { limit: Number(limit) } : {}),
        ...(id ? { id } : {}),
      });
    },
  },
  {
    id: 'sendMessage',
    title: 'sendMessage(message)',
    doc: 'Cualquiera de los ocho tipos; id y roomId se rellenan si faltan.',
    fields: [
      { name: 'message', kind: 'json', value: pretty({ type: 'TEXT', text: 'Hola desde la consola' }) },
    ],
    run: (v) => current().sendMessage(json(v, 'message')),
  },
];

for (const op of widgetOps) mountOperation('widget-ops', op, 'h3');

/* ---------------- HTTP operations ---------------- */

const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])$/;
let api: CharlaClient;
/** The table's poller has a client of its own, so its requests never show in a form. */
let pollApi: CharlaClient;
/** The last request the client sent, for the form that asked. */
let lastRequest: unknown = null;

function recordingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const headers = { ...((init?.headers ?? {}) as Record<string, string>) };
  const auth = headers['authorization'];
  // Shown, not hidden: this is the demo's credential. Shortened so the form stays readable.
  if (auth) headers['authorization'] = auth.length > 24 ? `${auth.slice(0, 22)}…` : auth;
  let body: unknown = undefined;
  if (typeof init?.body === 'string') {
    try {
      body = JSON.parse(init.body);
    } catch {
      body = init.body;
    }
  }
  lastRequest = {
    method: init?.method ?? 'GET',
    url: String(input),
    headers,
    ...(body === undefined ? {} : { body }),
  };
  return fetch(input, init);
}

function useCredentials(baseUrl: string, clientId: string, clientSecret: string): void {
  // The demo's own media are served over http on this machine.
  const allowLoopbackHttp = LOOPBACK.test(new URL(baseUrl).hostname);
  api = createClient({
    baseUrl,
    clientId,
    clientSecret,
    fetch: recordingFetch as typeof fetch,
    allowLoopbackHttp,
  });
  pollApi = createClient({ baseUrl, clientId, clientSecret, allowLoopbackHttp });
  byId('cred-state').textContent = `usando ${clientId} en ${baseUrl}`;
}

byId<HTMLInputElement>('cred-base-url').value = location.origin;
byId<HTMLInputElement>('cred-client-id').value = DEMO_CLIENT_ID;
byId<HTMLInputElement>('cred-client-secret').value = DEMO_CLIENT_SECRET;
useCredentials(location.origin, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET);
byId('credentials-form').addEventListener('submit', (event) => {
  event.preventDefault();
  try {
    useCredentials(
      byId<HTMLInputElement>('cred-base-url').value.trim(),
      byId<HTMLInputElement>('cred-client-id').value.trim(),
      byId<HTMLInputElement>('cred-client-secret').value,
    );
  } catch (error) {
    byId('cred-state').textContent = error instanceof Error ? error.message : String(error);
  }
});

/** Runs an API call, showing the request the client built (or that it sent none). */
/** The messageId of the last bot message this console sent: getBotMessage's default. */
let lastBotMessageId: string | null = null;

async function http<T>(show: { request(value: unknown): void }, call: () => Promise<T>): Promise<T> {
  lastRequest = null;
  try {
    const result = await call();
    const sent = (result as { messageId?: unknown } | null)?.messageId;
    if (typeof sent === 'string') lastBotMessageId = sent;
    return result;
  } finally {
    show.request(lastRequest ?? 'Nada enviado: el cliente rechazó los argumentos antes de enviar.');
  }
}

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
const today = () => new Date().toISOString().slice(0, 10);
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/* Campaign table, polled. */

let listQuery: Parameters<CharlaClient['listCampaigns']>[0] = {
  botId: DEMO_BOT_ID,
  startAt: '2020-01-01',
  endAt: tomorrow(),
  limit: 50,
};
let polling: ReturnType<typeof setInterval> | null = null;

function fmt(date: string | null | undefined): string {
  return date ? new Date(date).toLocaleString() : '—';
}

function fillForm(opId: string, values: Record<string, string>): void {
  const form = document.querySelector<HTMLFormElement>(`form[data-op="${opId}"]`);
  if (!form) return;
  for (const [name, value] of Object.entries(values)) {
    const input = form.elements.namedItem(name) as HTMLInputElement | null;
    if (input) input.value = value;
  }
  form.scrollIntoView({ block: 'center' });
}

/** The campaigns the table shows now, as JSON. */
let shownCampaigns = '';

function renderCampaigns(campaigns: Campaign[]): void {
  // Polled every second: rows are made again only when a campaign changed. Made again each time, a
  // row's Editar or Cancelar could go from under the pointer between its press and release, and the
  // click was lost (the CI run at 5619c6d: updateCampaign went without its campaignId).
  const json = JSON.stringify(campaigns);
  if (json === shownCampaigns) return;
  shownCampaigns = json;
  const rows = campaigns.map((c) => {
    const actions = h('td', {});
    if (c.status === 'SCHEDULED') {
      const cancel = h('button', { type: 'button', class: 'danger' }, 'Cancelar');
      cancel.addEventListener('click', () => {
        fillForm('http:cancelCampaign', { campaignId: c.id });
        document.querySelector<HTMLFormElement>('form[data-op="http:cancelCampaign"]')?.requestSubmit();
      });
      const edit = h('button', { type: 'button', class: 'secondary' }, 'Editar');
      edit.addEventListener('click', () =>
        fillForm('http:updateCampaign', { campaignId: c.id, name: c.name }),
      );
      actions.append(edit, ' ', cancel);
    }
    return h(
      'tr',
      { 'data-campaign-id': c.id },
      h('td', { title: c.id }, c.name),
      h('td', {}, h('code', {}, c.elementName)),
      h('td', {}, h('span', { class: 'status', 'data-status': c.status }, c.status)),
      h('td', { class: 'num', 'data-field': 'totalMessages' }, String(c.totalMessages)),
      h('td', { class: 'num', 'data-field': 'deliveredMessages' }, String(c.deliveredMessages)),
      h('td', { class: 'num', 'data-field': 'failedMessages' }, String(c.failedMessages)),
      h('td', {}, fmt(c.scheduledAt)),
      h('td', {}, fmt(c.createdAt)),
      h('td', {}, fmt(c.completedAt)),
      actions,
    );
  });
  byId('campaign-table')
    .querySelector('tbody')
    ?.replaceChildren(...rows);
}

async function refreshCampaigns(): Promise<void> {
  try {
    const page = await pollApi.listCampaigns(listQuery);
    renderCampaigns(page.data.results);
    byId('campaign-updated').textContent =
      `${page.data.pagination.total} campañas · ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    byId('campaign-updated').textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function setPolling(on: boolean): void {
  if (polling) clearInterval(polling);
  polling = on ? setInterval(() => void refreshCampaigns(), 1000) : null;
}
byId<HTMLInputElement>('campaign-poll').addEventListener('change', (e) =>
  setPolling((e.target as HTMLInputElement).checked),
);

const campaignIdField = { name: 'campaignId', placeholder: 'Editar / Cancelar en la tabla lo rellenan' };
const campaignOps: Operation[] = [
  {
    id: 'http:listCampaigns',
    title: 'GET /v1/campaigns',
    doc: 'listCampaigns(query). La tabla de arriba usa esta misma consulta.',
    fields: [
      { name: 'botId', value: DEMO_BOT_ID },
      { name: 'startAt', value: '2020-01-01' },
      { name: 'endAt', value: tomorrow },
      { name: 'status', kind: 'select', options: ['', 'PENDING', 'SCHEDULED', 'IN_PROGRESS', 'COMPLETED'] },
      { name: 'elementName' },
      { name: 'page', kind: 'number', placeholder: '1' },
      { name: 'limit', kind: 'number', value: '50' },
    ],
    run: (v, show) => {
      const page = optional(v, 'page');
      const limit = optional(v, 'limit');
      const status = optional(v, 'status');
      const elementName = optional(v, 'elementName');
      const query = {
        botId: str(v, 'botId'),
        startAt: str(v, 'startAt'),
        endAt: str(v, 'endAt'),
        ...(page ? { page: Number(page) } : {}),
        ...(limit ? { limit: Number(limit) } : {}),
        ...(status ? { status: status as 'SCHEDULED' } : {}),
        ...(elementName ? { elementName } : {}),
      };
      return http(show, () => api.listCampaigns(query)).then((r) => {
        listQuery = query;
        renderCampaigns(r.data.results);
        return r;
      });
    },
  },
  {
    id: 'http:createCampaign',
    title: 'POST /v1/campaigns',
    doc: 'createCampaign(body). Sin scheduledAt se envía ya; con él queda SCHEDULED.',
    fields: [
      { name: 'name', value: 'Campaña QA' },
      { name: 'elementName', value: 'qa_campaign' },
      { name: 'botId', value: DEMO_BOT_ID },
      { name: 'recipients', placeholder: '(usuario del widget), separados por comas', fallback: currentUser },
      {
        name: 'message',
        kind: 'json',
        value: pretty({ type: 'text', text: 'Hola desde una campaña de la consola' }),
      },
      {
        name: 'scheduledAt',
        placeholder: '(vacío: enviar ya)',
        quick: [
          { label: '+30 s', value: () => isoIn(30_000) },
          { label: '+2 min', value: () => isoIn(120_000) },
          { label: '+1 h', value: () => isoIn(3_600_000) },
        ],
      },
    ],
    run: (v, show) => {
      const scheduledAt = optional(v, 'scheduledAt');
      const recipients = str(v, 'recipients')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return http(show, () =>
        api.createCampaign({
          name: str(v, 'name'),
          elementName: str(v, 'elementName'),
          botId: str(v, 'botId'),
          recipients,
          message: json(v, 'message'),
          ...(scheduledAt ? { scheduledAt } : {}),
        }),
      );
    },
    after: () => void refreshCampaigns(),
  },
  {
    id: 'http:updateCampaign',
    title: 'PUT /v1/campaigns/{campaignId}',
    doc: 'updateCampaign(id, { name?, scheduledAt? }). Solo SCHEDULED; la fecha nueva, posterior a la actual.',
    fields: [
      campaignIdField,
      { name: 'name' },
      {
        name: 'scheduledAt',
        quick: [
          { label: '+5 min', value: () => isoIn(300_000) },
          { label: '+1 día', value: () => isoIn(86_400_000) },
        ],
      },
    ],
    run: (v, show) => {
      const name = optional(v, 'name');
      const scheduledAt = optional(v, 'scheduledAt');
      return http(show, () =>
        api.updateCampaign(str(v, 'campaignId'), {
          ...(name ? { name } : {}),
          ...(scheduledAt ? { scheduledAt } : {}),
        }),
      );
    },
    after: () => void refreshCampaigns(),
  },
  {
    id: 'http:cancelCampaign',
    title: 'DELETE /v1/campaigns/{campaignId}',
    doc: 'cancelCampaign(id). Solo SCHEDULED: pasa a CANCELLED y no llega a nadie.',
    fields: [campaignIdField],
    run: (v, show) => http(show, () => api.cancelCampaign(str(v, 'campaignId'))),
    after: () => void refreshCampaigns(),
  },
];
for (const op of campaignOps) mountOperation('campaign-ops', op);

/* Widget creation, and embedding the new one live. */

const embedded: WidgetInstance[] = [];
mountOperation('widget-create-ops', {
  id: 'http:createWidget',
  title: 'POST /v1/widget/create',
  doc: 'createWidget(body). botId vacío: crea un bot nuevo. Después, "Insertar en vivo" lo pone en esta página.',
  fields: [
    { name: 'botId', value: DEMO_BOT_ID, placeholder: '(vacío: bot nuevo)' },
    { name: 'botName', value: 'Bot de la consola' },
    { name: 'type', kind: 'select', options: ['normal', 'group'], value: 'normal' },
    {
      name: 'position',
      kind: 'select',
      options: ['bottom-left', 'bottom-right', 'top-left', 'top-right'],
      value: 'bottom-left',
    },
    { name: 'primary', label: 'colors.primary', value: '#db2777' },
    { name: 'fontName', label: 'font.name', value: '' },
    { name: 'whiteList', placeholder: 'https://*.example.com, … (vacío: cualquiera)' },
  ],
  run: (v, show) => {
    const botId = optional(v, 'botId');
    const whiteList = str(v, 'whiteList')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return http(show, () =>
      api.createWidget({
        bot: botId ? { id: botId } : { name: str(v, 'botName') || 'Bot de la consola' },
        widget: {
          properties: { type: str(v, 'type') as 'normal' | 'group' },
          theme: {
            position: str(v, 'position') as 'bottom-left',
            status: true,
            font: { googlefont: false, name: str(v, 'fontName') },
            colors: { primary: str(v, 'primary') },
          },
          ...(whiteList.length ? { credentials: { whiteList } } : {}),
        },
      }),
    );
  },
  after: (result, form) => {
    const key = (result as { data?: { ApiKey?: { key?: string } } }).data?.ApiKey?.key;
    if (!key) return;
    form.querySelector('[data-embed]')?.remove();
    const button = h(
      'button',
      { type: 'button', class: 'secondary', 'data-embed': true },
      'Insertar en vivo',
    );
    button.addEventListener('click', () => {
      const w = createWidget({
        apiKey: key,
        baseUrl: location.origin,
        userId: currentUser() ?? defaultUserId(),
        userNames: 'QA Tester',
      });
      embedded.push(w);
      w.connect().catch((error: unknown) =>
        logEvent('embedded connect failed', error instanceof Error ? error.message : error),
      );
      const remove = h('button', { type: 'button', class: 'secondary' }, 'Quitar');
      const item = h('li', {}, 'Widget con la clave ', h('code', {}, key), ' ', remove);
      remove.addEventListener('click', () => {
        w.destroy();
        item.remove();
      });
      byId('embedded-widgets').append(item);
      button.remove();
    });
    form.append(button);
  },
});

/* The six bot-message variants, to the console widget's user. */

const botField = { name: 'botId', value: DEMO_BOT_ID };
const toField = { name: 'userId', placeholder: '(usuario del widget)', fallback: currentUser };
const botOps: Operation[] = [
  {
    id: 'http:sendText',
    title: 'text',
    doc: 'sendText(botId, userId, text)',
    fields: [
      botField,
      toField,
      { name: 'text', kind: 'textarea', value: 'Hola 👋 te escribe el bot desde la API.' },
    ],
    run: (v, show) => http(show, () => api.sendText(str(v, 'botId'), str(v, 'userId'), str(v, 'text'))),
  },
  {
    id: 'http:sendOptions',
    title: 'text + buttons',
    doc: 'sendOptions(botId, userId, text, buttons): 1 a 10 opciones; título ≤ 24, descripción ≤ 72.',
    fields: [
      botField,
      toField,
      { name: 'text', value: '¿En qué te ayudamos?' },
      { name: 'buttonText', placeholder: 'Opciones' },
      {
        name: 'options',
        kind: 'json',
        value: pretty([
          { title: 'Estado del pedido', description: 'Dónde está tu pedido ahora', payload: 'order_status' },
          { title: 'Devoluciones', description: 'Plazos y cómo hacerlo', payload: 'returns' },
          { title: 'Hablar con alguien', payload: 'human' },
        ]),
      },
    ],
    run: (v, show) => {
      const buttonText = optional(v, 'buttonText');
      return http(show, () =>
        api.sendOptions(str(v, 'botId'), str(v, 'userId'), str(v, 'text'), {
          options: json(v, 'options'),
          ...(buttonText ? { buttonText: { type: 'text' as const, text: buttonText } } : {}),
        }),
      );
    },
  },
  {
    id: 'http:sendContacts',
    title: 'contacts',
    doc: 'sendContacts(botId, userId, contacts): teléfonos en E.164.',
    fields: [
      botField,
      toField,
      {
        name: 'contacts',
        kind: 'json',
        value: pretty([
          {
            name: { formatted_name: 'Atención al cliente', first_name: 'Atención', last_name: 'Cliente' },
            phones: [{ phone: '+34910000000', type: 'WORK' }],
            emails: [{ email: 'ayuda@charla.example', type: 'WORK' }],
            addresses: [
              {
                street: 'Calle del Pez 12',
                city: 'Madrid',
                zip: '28004',
                country: 'España',
                country_code: 'ES',
                type: 'WORK',
              },
            ],
          },
        ]),
      },
    ],
    run: (v, show) =>
      http(show, () => api.sendContacts(str(v, 'botId'), str(v, 'userId'), json(v, 'contacts'))),
  },
  {
    id: 'http:sendVoiceCall',
    title: 'voice_call',
    doc: 'sendVoiceCall(botId, userId, { header?, text, displayText }): requiere llamadas habilitadas.',
    fields: [
      botField,
      toField,
      { name: 'header', value: 'Soporte' },
      { name: 'text', value: 'Llámanos y te atendemos al momento.' },
      { name: 'displayText', label: 'display_text', value: 'Llamar ahora' },
    ],
    run: (v, show) => {
      const header = optional(v, 'header');
      return http(show, () =>
        api.sendVoiceCall(str(v, 'botId'), str(v, 'userId'), {
          text: str(v, 'text'),
          displayText: str(v, 'displayText'),
          ...(header ? { header } : {}),
        }),
      );
    },
  },
  {
    id: 'http:sendVideo',
    title: 'video',
    doc: 'sendVideo(botId, userId, mediaUrl, caption?): un MP4 o 3GP público de hasta 16 MB.',
    fields: [
      botField,
      toField,
      { name: 'mediaUrl', value: () => `${location.origin}/media/charla-demo.mp4` },
      { name: 'caption', value: 'Así se ve Charla' },
    ],
    run: (v, show) =>
      http(show, () =>
        api.sendVideo(str(v, 'botId'), str(v, 'userId'), str(v, 'mediaUrl'), optional(v, 'caption')),
      ),
  },
  {
    id: 'http:sendContactInfoRequest',
    title: 'contact_info_request',
    doc: 'sendContactInfoRequest(botId, userId, text): el widget muestra un formulario.',
    fields: [botField, toField, { name: 'text', value: '¿Nos dejas tus datos para llamarte?' }],
    run: (v, show) =>
      http(show, () => api.sendContactInfoRequest(str(v, 'botId'), str(v, 'userId'), str(v, 'text'))),
  },
  {
    id: 'http:getBotMessage',
    title: 'GET /v1/bots/{botId}/messages/{messageId}',
    doc: 'getBotMessage(botId, messageId): el estado de un mensaje del bot (DELIVERED, DELIVERED_CHANNEL, DELIVERED_USER…).',
    fields: [
      botField,
      {
        name: 'messageId',
        placeholder: '(el último que envió esta consola)',
        fallback: () => lastBotMessageId,
      },
    ],
    run: (v, show) => http(show, () => api.getBotMessage(str(v, 'botId'), str(v, 'messageId'))),
  },
];
for (const op of botOps) mountOperation('bot-ops', op);

/* Room posting, media refresh, the OpenAPI document. */

let lastPostedId: string | null = null;
mountOperation('room-ops', {
  id: 'http:postRoomMessages',
  title: 'POST /v1/rooms/{roomId}/message',
  doc: 'postRoomMessages(roomId, { senderId, messages }). Cada mensaje lleva un UUID: repetirlo no duplica nada.',
  fields: [
    roomField,
    { name: 'senderId', value: 'qa-console' },
    { name: 'type', kind: 'select', options: ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'], value: 'TEXT' },
    { name: 'text', value: 'Mensaje externo: tu pedido ha salido del almacén.' },
    { name: 'mediaUrl', value: () => `${location.origin}/media/pan.png` },
    { name: 'repeat', label: 'repetir el último id', kind: 'checkbox' },
  ],
  run: (v, show) => {
    const id = v['repeat'] === true && lastPostedId ? lastPostedId : crypto.randomUUID();
    lastPostedId = id;
    const type = str(v, 'type') as 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
    const message =
      type === 'TEXT'
        ? { id, type, text: str(v, 'text') }
        : {
            id,
            type,
            mediaUrl: str(v, 'mediaUrl'),
            ...(optional(v, 'text') ? { caption: str(v, 'text') } : {}),
          };
    return http(show, () =>
      api.postRoomMessages(str(v, 'roomId'), { senderId: str(v, 'senderId'), messages: [message] }),
    );
  },
});

mountOperation('room-ops', {
  id: 'http:refreshAsset',
  title: 'POST /v1/external/assets/refresh',
  doc: 'refreshAsset({ resourceUrl, ttl }): ttl de 900 a 3600 s. Solo firma medios del propio servicio, en https (con CHARLA_PUBLIC_URL en https); lo demás es 422 E1126.',
  fields: [
    { name: 'resourceUrl', value: () => `${location.origin.replace(/^http:/, 'https:')}/v1/media/demo/png` },
    { name: 'ttl', kind: 'number', value: '900' },
  ],
  run: (v, show) =>
    http(show, () => api.refreshAsset({ resourceUrl: str(v, 'resourceUrl'), ttl: Number(str(v, 'ttl')) })),
});

mountOperation('room-ops', {
  id: 'http:openapi',
  title: 'GET /v1/openapi.json',
  doc: 'openapi(): el documento OpenAPI del servicio (aquí, sus rutas).',
  run: (_v, show) =>
    http(show, () => api.openapi()).then((doc) => ({
      openapi: doc.openapi,
      paths: Object.keys(doc.paths ?? {}),
    })),
});

/* Start: the console's widget, the campaign table and its polling. */

startWidget(
  byId<HTMLInputElement>('session-api-key').value,
  byId<HTMLInputElement>('session-user-id').value,
  byId<HTMLInputElement>('session-user-names').value,
);
void refreshCampaigns();
setPolling(byId<HTMLInputElement>('campaign-poll').checked);
