/**
 * WidgetActions: what the components call. Logic lives here and in the
 * stores; the components only render and call these.
 */
import type { Contact, Language, Message, MessageOption, QuickReply, Room } from '../../types/index.ts';
import { LANGUAGES } from '../../types/enums.ts';
import {
  charCount,
  GET_MESSAGES_LIMIT_DEFAULT,
  SHORT_TEXT_MAX,
  UPLOAD_IMAGE_MAX_BYTES,
  UPLOAD_MEDIA_MAX_BYTES,
  UPLOAD_MEDIA_TYPES,
} from '../../types/limits.ts';
import { ROUTES, routePath } from '../../types/routes.ts';
import type { UploadResult } from '../../types/index.ts';
import { translator } from '../i18n/index.ts';
import { patchUi } from '../stores/index.ts';
import { attempt, clientError, invalidArgument, toCharlaError } from '../transport/errors.ts';
import { isSafeUrl } from '../util/url.ts';
import { uuid } from '../util/uuid.ts';
import { nameToSend, requireContact, requireId, sentContact, typedName } from '../util/validate.ts';
import type { WidgetActions } from './context.ts';
import type { WidgetCore } from './core.ts';

/** Messages asked for each time the user scrolls up to the oldest held (getMessages takes 100 at most). */
const OLDER_PAGE = 50;

export interface CoreActions extends WidgetActions {
  /** Opens (or finds) the direct room with a user and shows it. */
  openRoomWithUser(contact: Contact): Promise<Room>;
}

export function createActions(core: WidgetCore): CoreActions {
  const w = core.stores.w;

  const currentRoom = (): string => {
    const roomId = w.$currentRoomId.get() ?? core.currentSession?.botRoomId ?? null;
    if (!roomId) throw invalidArgument('there is no current room', 'roomId');
    return roomId;
  };

  const loadLatest = (roomId: string) => {
    const held = w.$messagesByRoom.get()[roomId];
    if (held && held.some((m) => m.seq !== undefined)) return;
    void loadPage(roomId, null);
  };

  /**
   * A page of a room's history: the latest GET_MESSAGES_LIMIT_DEFAULT when it opens, then
   * OLDER_PAGE at a time as the user scrolls up (pages of 20 took five minutes of scrolling
   * to reach the start of a 20,000-message room).
   */
  const loadPage = async (
    roomId: string,
    beforeId: string | null,
    limit = GET_MESSAGES_LIMIT_DEFAULT,
  ): Promise<void> => {
    const history = w.$historyByRoom.get();
    const state = history[roomId] ?? { loading: false, hasMore: true };
    if (state.loading) return;
    w.$historyByRoom.set({ ...history, [roomId]: { ...state, loading: true, error: undefined } });
    try {
      const page = await core.getMessages({ roomId, limit, id: beforeId });
      w.$historyByRoom.set({
        ...w.$historyByRoom.get(),
        [roomId]: { loading: false, hasMore: page.length >= limit },
      });
      core.refreshExpiredMedia(roomId);
    } catch (error) {
      const e = toCharlaError(error);
      w.$historyByRoom.set({
        ...w.$historyByRoom.get(),
        [roomId]: { loading: false, hasMore: state.hasMore, error: e.body },
      });
    }
  };

  /**
   * An operation a contact list starts (a contact chosen): when it fails, the `error` event says
   * so, as for the other operations with no caller to reject to, and the view tells the user.
   */
  const reported = <T>(operation: string, run: () => Promise<T>): Promise<T> =>
    attempt(run).catch((error: unknown) => {
      const e = toCharlaError(error);
      core.emit('error', { error: e, operation });
      throw e;
    });

  const sendTo = (message: Record<string, unknown>) =>
    core.sendMessage({ roomId: currentRoom(), ...message });
  /** The POSTBACK of a chosen option or quick reply, answering `message`. */
  const postback = (message: Message, choice: MessageOption | QuickReply) =>
    attempt(() =>
      core.sendMessage({
        roomId: message.roomId,
        type: 'POSTBACK',
        text: choice.title,
        payload: { ...(choice.payload ?? {}), replyTo: String(message.id) },
      }),
    );

  /** The uploads in flight, by their id in $uploads: cancelUpload stops one. */
  const uploading = new Map<string, AbortController>();
  /** An upload ends (sent on, failed or cancelled): no progress bar, nothing left to cancel. */
  const dropUpload = (id: string) => {
    uploading.delete(id);
    w.$uploads.set(w.$uploads.get().filter((u) => u.id !== id));
  };

  const actions: CoreActions = {
    baseUrl: core.baseUrl,
    open() {
      if (patchUi(w.$ui, { open: true, launcherDisabled: false })) {
        // The room shown (only on the chat view) is read by the core as it comes into view.
        core.emit('open', {});
        const roomId = w.$currentRoomId.get();
        if (roomId) {
          core.refreshExpiredMedia(roomId);
          if (core.currentSession) loadLatest(roomId);
        }
      }
    },
    close(disable = false) {
      const { open: wasOpen, launcherDisabled: wasDisabled } = w.$ui.get();
      patchUi(w.$ui, disable ? { open: false, launcherDisabled: true } : { open: false });
      // Disabling a closed widget's launcher is news too: a page that follows `disabled` hears it.
      if (wasOpen || (disable && !wasDisabled)) core.emit('close', { disabled: disable === true });
    },
    showHomeMenu() {
      w.$homeShown.set(true);
      patchUi(w.$ui, { view: 'home' });
    },
    hideHomeMenu() {
      patchUi(w.$ui, { view: 'chat' });
    },
    showRoomContacts() {
      patchUi(w.$ui, { view: 'room-contacts' });
    },
    selectRoom(roomId: string) {
      requireId(roomId, 'roomId');
      w.$currentRoomId.set(roomId);
      patchUi(w.$ui, { view: 'chat' });
      core.refreshExpiredMedia(roomId);
      if (core.currentSession) loadLatest(roomId);
    },
    sendMessage(message) {
      return attempt(() =>
        message && (message as { roomId?: unknown }).roomId
          ? core.sendMessage(message)
          : sendTo({ ...message }),
      );
    },
    sendText(text: string) {
      return attempt(() => sendTo({ type: 'TEXT', text }));
    },
    chooseOption: postback,
    chooseQuickReply: postback,
    submitContactInfo(message: Message, info: { name: string; phone: string; email: string }) {
      return attempt(() => {
        const name = typedName(String(info?.name ?? ''));
        const phone = String(info?.phone ?? '').trim();
        const email = String(info?.email ?? '').trim();
        if (!name && !phone && !email) throw invalidArgument('name, phone or email is needed', 'info');
        return core.sendMessage({
          roomId: message.roomId,
          type: 'POSTBACK',
          text: [name, phone, email].filter(Boolean).join(' · '),
          payload: { type: 'contact_info', replyTo: String(message.id), name, phone, email },
        });
      });
    },
    sendFile(file, type, caption) {
      return attempt(async () => {
        if (!file || typeof (file as Blob).size !== 'number')
          throw invalidArgument('file must be a Blob or File', 'file');
        const accepted = (Object.hasOwn(UPLOAD_MEDIA_TYPES, type) ? UPLOAD_MEDIA_TYPES[type] : undefined) as
          readonly string[] | undefined;
        if (!accepted) throw invalidArgument('type must be IMAGE, DOCUMENT, AUDIO or VIDEO', 'type');
        // Recorders add codec parameters (audio/webm;codecs=opus): compare the essence.
        const essence = (file.type || '').split(';')[0]?.trim().toLowerCase() ?? '';
        if (!accepted.includes(essence))
          throw invalidArgument(`${essence || 'this file type'} is not accepted for ${type}`, 'file');
        const max = type === 'IMAGE' ? UPLOAD_IMAGE_MAX_BYTES : UPLOAD_MEDIA_MAX_BYTES;
        if (file.size > max)
          throw invalidArgument(`the file is larger than ${Math.round(max / 1024 / 1024)} MB`, 'file');
        // Checked before the upload, not by the message after it: a refused caption wasted the file.
        if (caption !== undefined && (typeof caption !== 'string' || charCount(caption) > SHORT_TEXT_MAX))
          throw invalidArgument(
            `caption must be a string of at most ${SHORT_TEXT_MAX} characters`,
            'caption',
          );
        const roomId = currentRoom();
        const id = uuid();
        // A Blob has no name: it is named in the widget's language ("Documento"), never in English only.
        const name = file.name || translator(w.$language.get())('document');
        const controller = new AbortController();
        uploading.set(id, controller);
        w.$uploads.set([...w.$uploads.get(), { id, name, progress: 0 }]);
        try {
          await core.ensureSession();
          controller.signal.throwIfAborted();
          const form = new FormData();
          form.append('type', type);
          form.append('roomId', roomId);
          form.append('file', file, name);
          const result = await core.rest.upload<UploadResult>(ROUTES.widgetUpload, form, {
            signal: controller.signal,
            // All sent, the service still storing it: no figure (an indeterminate bar), not a full bar.
            onProgress: (sent) =>
              w.$uploads.set(
                w.$uploads.get().map((u) => (u.id === id ? { ...u, progress: sent < 1 ? sent : 0 } : u)),
              ),
          });
          // Cancelled as the file arrived (its answer already on its way): the file stays unused.
          controller.signal.throwIfAborted();
          if (!result || !isSafeUrl(result.mediaUrl))
            throw invalidArgument('the upload gave no usable address', 'mediaUrl');
          // From here the message is sent: nothing left to cancel (no await until sendMessage holds it).
          dropUpload(id);
          const message: Record<string, unknown> = { roomId, type, mediaUrl: result.mediaUrl };
          if (caption && type !== 'AUDIO') message['caption'] = caption;
          return await core.sendMessage(message);
        } catch (error) {
          dropUpload(id);
          // A failure the composer tells the visitor (naming the file, with a retry; a retry is a new
          // upload). A cancel is no failure: DESTROYED, stopped on purpose, which it does not report.
          throw controller.signal.aborted
            ? clientError('DESTROYED', `the upload of ${name} was cancelled`)
            : toCharlaError(error);
        }
      });
    },
    cancelUpload(id: string) {
      uploading.get(id)?.abort();
      dropUpload(id);
    },
    sendLocation(lat: number, lng: number) {
      return attempt(() => sendTo({ type: 'LOCATION', lat: String(lat), lng: String(lng) }));
    },
    retry(messageId: string) {
      return core.retry(messageId);
    },
    async loadOlder() {
      const roomId = w.$currentRoomId.get();
      if (!roomId) return;
      const list = w.$messagesByRoom.get()[roomId] ?? [];
      const oldest = list.find((m) => m.seq !== undefined);
      const history = w.$historyByRoom.get()[roomId];
      if (history && !history.hasMore) return;
      await loadPage(
        roomId,
        oldest ? String(oldest.id) : null,
        oldest ? OLDER_PAGE : GET_MESSAGES_LIMIT_DEFAULT,
      );
    },
    markSeen(roomId: string, ids: string[]) {
      core.markSeen(roomId, ids);
    },
    isNews: (message: Message) => core.isNews(message),
    openRoomWithUser(contact: Contact) {
      return reported('openRoomWithUser', async () => {
        const c = requireContact(contact);
        const body: Record<string, unknown> = { id: c.id };
        const names = c.names === undefined ? undefined : nameToSend(c.names);
        if (names !== undefined) body['names'] = names;
        const res = await core.postApi<Room | { room: Room }>(ROUTES.widgetDirectRoom, body);
        const room = (res && typeof res === 'object' && 'room' in res ? res.room : res) as Room;
        core.upsertRoom(room, true);
        actions.selectRoom(room.id);
        return room;
      });
    },
    addMember(contact: Contact, room?: string) {
      return reported('addMember', async () => {
        const c = requireContact(contact);
        const roomId = room ?? currentRoom();
        await core.postApi(routePath(ROUTES.widgetRoomMembers, { roomId }), { member: sentContact(c) });
      });
    },
    refreshMediaUrl(url: string) {
      return core.refreshMediaUrl(url);
    },
    dismissError() {
      w.$lastError.set(null);
    },
    reconnect() {
      // The core reports a failure in $lastError and $connection; nothing else to do with it here.
      core.connect().catch(() => undefined);
    },
    setLanguage(language: Language) {
      if (!(LANGUAGES as readonly string[]).includes(language))
        throw invalidArgument(`language must be one of ${LANGUAGES.join(', ')}`, 'language');
      w.$language.set(language);
    },
  };
  return actions;
}
