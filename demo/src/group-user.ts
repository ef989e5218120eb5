/**
 * One user of the group chat demo (`/group-user.html?user=alice`): the
 * `group` widget for that user, their contacts (everyone else, loaded with
 * the contact loader showing), the same people as room contacts (to add to a
 * room), and a log of the widget's events.
 */
import { createWidget, type Contact, type WidgetInstance } from '../../src/index.ts';
import { DEMO_GROUP_API_KEY, DEMO_USERS } from './config.ts';
import { byId, h } from './dom.ts';

const params = new URLSearchParams(location.search);
const userId = params.get('user') || 'alice';
const me = DEMO_USERS.find((u) => u.id === userId) ?? { id: userId, names: userId, color: '#4f46e5' };

byId('user-name').textContent = me.names;
byId('user-id').textContent = me.id;
byId('avatar').classList.add(me.id);
document.title = `${me.names} · chat de grupo`;
// Opened on its own rather than in /group.html's frames: say what it is part of.
if (window.top === window) byId('standalone').hidden = false;

const widget: WidgetInstance = createWidget({
  apiKey: DEMO_GROUP_API_KEY,
  baseUrl: location.origin,
  userId: me.id,
  userNames: me.names,
  language: 'es',
  autoShow: true,
});
(window as unknown as { groupWidget: WidgetInstance }).groupWidget = widget;

function log(text: string): void {
  const list = byId('event-log');
  list.append(h('li', {}, `${new Date().toLocaleTimeString()} ${text}`));
  list.scrollTop = list.scrollHeight;
}

let currentRoom: string | null = null;
widget.stores.$connection.subscribe((state) => {
  byId('connection').textContent = state;
});
widget.stores.$currentRoomId.subscribe((roomId) => {
  currentRoom = roomId;
  byId('current-room').textContent = roomId ?? 'ninguna';
  (byId('leave-room') as HTMLButtonElement).disabled = roomId === null;
});
widget.on('message', ({ message }) => {
  log(`mensaje ${message.type} de ${message.senderNames ?? message.senderId}`);
});
widget.on('addedToRoom', ({ type, member }) => {
  log(type === 'me' ? 'me han añadido a una sala' : `entra ${member.names ?? member.referenceId}`);
});
widget.on('removedFromRoom', ({ type, member }) => {
  log(type === 'me' ? 'he salido de la sala' : `sale ${member.names ?? member.referenceId}`);
});
widget.on('error', ({ error, operation }) => log(`error en ${operation}: ${error.message}`));

for (const other of DEMO_USERS.filter((u) => u.id !== me.id)) {
  const button = h(
    'button',
    { type: 'button', class: 'secondary' },
    `Chatear con ${other.names.split(' ')[0]}`,
  );
  button.addEventListener('click', () => {
    widget.openRoomWithUser({ id: other.id, names: other.names }).then(
      () => log(`sala abierta con ${other.names}`),
      (error: unknown) =>
        log(`openRoomWithUser falló: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  byId('open-with').append(button);
}
byId('leave-room').addEventListener('click', () => {
  if (!currentRoom) return;
  widget.leaveRoom(currentRoom, me.id).then(
    (r) => log(`leaveRoom: ${r.statusMessage}`),
    (error: unknown) => log(`leaveRoom falló: ${error instanceof Error ? error.message : String(error)}`),
  );
});
byId('show-home').addEventListener('click', () => widget.showHomeMenu());

async function loadContacts(): Promise<void> {
  widget.startLoading();
  widget.startLoadingForRoom();
  try {
    const res = await fetch('/data/contacts.json');
    const all = (await res.json()) as Contact[];
    const others = all.filter((c) => String(c.id) !== me.id);
    widget.setContacts(others);
    widget.setContactsForRoom(others);
    log(`${others.length} contactos cargados`);
  } catch (error) {
    log(`no se pudieron cargar los contactos: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    widget.stopLoading();
    widget.stopLoadingForRoom();
  }
}

widget.connect().then(
  () => log('conectado'),
  (error: unknown) => log(`no se pudo conectar: ${error instanceof Error ? error.message : String(error)}`),
);
void loadContacts();
