/**
 * The bot's flow runner. Flows are data: each `server/flows/*.json` file
 * declares the bots it serves and their flows (format below, also in the
 * README). A flow is a list of steps; a step may send one message of any kind
 * the interface knows, wait for the user's reply (a text, or an option chosen
 * in the widget, which comes back as a POSTBACK with the option's payload),
 * and branch on it. Strings interpolate `{{params.x}}` (the flow's
 * storedParams), `{{answers.stepId}}` (the user's replies so far),
 * `{{user.id}}`, `{{user.names}}` and `{{assets.png}}`-style media addresses.
 *
 * ```json
 * {
 *   "bots": ["demo-bot"],            // bot ids served ("*" = every bot)
 *   "greeting": "greeting",          // flow a new visitor gets
 *   "fallback": "menu",              // flow a message outside any flow starts (optional)
 *   "flows": {
 *     "greeting": { "steps": [
 *       { "id": "hello", "send": { "type": "text", "text": "Hola {{user.names}}" } },
 *       { "id": "pick", "send": { "type": "options", "text": "¿Qué ves?", "buttonText": "Ver",
 *           "options": [{ "title": "Texto", "payload": "text" }] },
 *         "wait": true, "branch": { "text": "flow:tour_text", "*": "pick" } }
 *     ] }
 *   }
 * }
 * ```
 *
 * `send.type` is one of text, options, quick_replies, contacts, voice_call,
 * video, image, document, audio, location, contact_info_request. After a step
 * the runner goes to `branch[answer]` (when it waited; `"*"` matches
 * anything), else to `next`, else to the following step. A target is a step id,
 * `flow:<id>` (start that flow, keeping params and answers) or `end`.
 * State per (room, user) is kept in `flow_states`, so a flow survives restarts.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../store/db.ts';
import type { NewMessageInput } from '../context.ts';
import {
  DEFAULT_BUTTON_TEXT,
  type BotContact,
  type Message,
  type MessageOption,
  type QuickReply,
} from '../../types/index.ts';
import type { LiveMessaging } from './messaging.ts';

export const FLOWS_DIR = fileURLToPath(new URL('../flows/', import.meta.url));

/**
 * What a step may send, each made by toMessageInput (whose switch the type checker holds to this
 * list); a file naming another is refused at start (a misspelt type went as a plain text).
 */
const SEND_TYPES = [
  'text',
  'options',
  'quick_replies',
  'contacts',
  'voice_call',
  'video',
  'image',
  'document',
  'audio',
  'location',
  'contact_info_request',
] as const;

export interface FlowSend {
  type: (typeof SEND_TYPES)[number];
  text?: string;
  caption?: string;
  mediaUrl?: string;
  buttonText?: string;
  title?: string;
  options?: { title: string; payload?: string; description?: string }[];
  contacts?: BotContact[];
  header?: string;
  displayText?: string;
  lat?: string;
  lng?: string;
}

export interface FlowStep {
  id: string;
  send?: FlowSend;
  wait?: boolean;
  branch?: Record<string, string>;
  next?: string;
  /** Remember a value in params when the step runs: `{ "topic": "{{answers.pick}}" }`. */
  set?: Record<string, string>;
}

export interface Flow {
  steps: FlowStep[];
}

export interface FlowFile {
  bots: string[];
  greeting?: string;
  fallback?: string;
  flows: Record<string, Flow>;
}

/** The file's flow of this id: its own keys only ('constructor' or '__proto__' names no flow). */
function flowIn(file: FlowFile | undefined, flowId: string): Flow | undefined {
  return file && Object.hasOwn(file.flows, flowId) ? file.flows[flowId] : undefined;
}

interface FlowState {
  flow_id: string;
  step_id: string | null;
  waiting: boolean;
  /** Ids of the messages the flows sent this user, the latest FLOW_SENT_KEPT, across flows started anew. */
  sent: string[];
  params: Record<string, string>;
  answers: Record<string, string>;
}

export interface FlowRunner {
  has(botId: string, flowId: string): boolean;
  /** Starts a flow for the user in the bot room, replacing any running one. */
  start(input: {
    roomId: string;
    botId: string;
    userId: string;
    flowId: string;
    params: Record<string, string>;
  }): Promise<void>;
  /**
   * The bot's greeting flow, if it has one, for a user it has not talked
   * with yet in that room (no flow state: a room made by a bot message or a
   * campaign still gets it). The claim is one INSERT, so two sessions at once
   * greet once. Does not wait.
   */
  greet(input: { roomId: string; botId: string; userId: string; language?: string | undefined }): void;
  /** Settles when every queued turn has run (tests). */
  idle(): Promise<void>;
  /** The process is stopping: the turn running ends, the queued ones are left (their messages stay stored). */
  stop(): void;
}

/** Reads every flow file of a directory; a malformed file is skipped with a warning. */
export function loadFlowFiles(dir: string, log?: FastifyBaseLogger): FlowFile[] {
  if (!existsSync(dir)) return [];
  const files: FlowFile[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, name), 'utf8')) as FlowFile;
      validateFlowFile(parsed, name);
      files.push(parsed);
    } catch (err) {
      log?.warn({ err: { message: (err as Error).message }, file: name }, 'flow file skipped');
    }
  }
  return files;
}

const TARGET = /^(end|flow:[\w-]+|[\w-]+)$/;
export function validateFlowFile(f: FlowFile, name = 'flow file'): void {
  const fail = (why: string) => {
    throw new Error(`${name}: ${why}`);
  };
  if (!Array.isArray(f.bots) || !f.bots.every((b) => typeof b === 'string'))
    fail('bots must be a list of bot ids');
  if (typeof f.flows !== 'object' || f.flows === null) fail('flows must be an object');
  for (const [flowId, flow] of Object.entries(f.flows)) {
    if (!Array.isArray(flow.steps) || flow.steps.length === 0) fail(`flow ${flowId} has no steps`);
    const ids = new Set(flow.steps.map((s) => s.id));
    for (const step of flow.steps) {
      if (typeof step.id !== 'string') fail(`a step of ${flowId} has no id`);
      if (step.send !== undefined && !(SEND_TYPES as readonly unknown[]).includes(step.send?.type))
        fail(`${flowId}/${step.id} sends an unknown type ${JSON.stringify(step.send?.type)}`);
      const targets = [...Object.values(step.branch ?? {}), ...(step.next ? [step.next] : [])];
      for (const t of targets) {
        if (!TARGET.test(t)) fail(`bad target ${t} in ${flowId}/${step.id}`);
        if (t.startsWith('flow:') && !Object.hasOwn(f.flows, t.slice(5)))
          fail(`unknown flow ${t} in ${flowId}/${step.id}`);
        if (t !== 'end' && !t.startsWith('flow:') && !ids.has(t))
          fail(`unknown step ${t} in ${flowId}/${step.id}`);
      }
    }
  }
  for (const key of ['greeting', 'fallback'] as const) {
    const v = f[key];
    if (v !== undefined && !Object.hasOwn(f.flows, v)) fail(`${key} names no flow`);
  }
}

/** `{{params.x}}`, `{{answers.y}}`, `{{user.id}}`, `{{assets.z}}` in every string of a value. */
export function interpolate<T>(value: T, scope: Record<string, Record<string, string>>): T {
  if (typeof value === 'string') {
    return value.replace(
      /\{\{\s*([a-zA-Z]+)\.([\w-]+)\s*\}\}/g,
      (_, ns: string, key: string) => scope[ns]?.[key] ?? '',
    ) as T;
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, scope)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, scope)])) as T;
  }
  return value;
}

/** The widget message a step's `send` shows as (the same shapes bot messages use). */
export function toMessageInput(send: FlowSend): Omit<NewMessageInput, 'roomId' | 'senderId' | 'by'> {
  const text = send.text ?? '';
  switch (send.type) {
    case 'text':
      return { type: 'TEXT', text };
    case 'options': {
      const options: MessageOption[] = (send.options ?? []).map((o, i) => ({
        type: 'postback',
        title: o.title,
        payload: { payload: o.payload ?? o.title, title: o.title },
        order: i,
        ...(o.description !== undefined ? { description: o.description } : {}),
      }));
      return {
        type: 'TEXT',
        text,
        options,
        interactive: {
          kind: 'options',
          buttonText: send.buttonText ?? DEFAULT_BUTTON_TEXT,
          ...(send.title !== undefined ? { title: send.title } : {}),
        },
      };
    }
    case 'quick_replies': {
      const QuickReplies: QuickReply[] = (send.options ?? []).map((o) => ({
        title: o.title,
        payload: { payload: o.payload ?? o.title, title: o.title },
        contentType: 'text',
      }));
      return { type: 'TEXT', text, QuickReplies };
    }
    case 'contacts':
      return { type: 'TEXT', text, interactive: { kind: 'contacts', contacts: send.contacts ?? [] } };
    case 'voice_call':
      return {
        type: 'TEXT',
        text,
        interactive: {
          kind: 'voice_call',
          displayText: send.displayText ?? text,
          ...(send.header !== undefined ? { header: send.header } : {}),
        },
      };
    case 'contact_info_request':
      return { type: 'TEXT', text, interactive: { kind: 'contact_info_request' } };
    case 'video':
    case 'image':
    case 'document':
      return {
        type: send.type.toUpperCase() as 'VIDEO' | 'IMAGE' | 'DOCUMENT',
        mediaUrl: send.mediaUrl ?? '',
        ...((send.caption ?? send.text) ? { caption: send.caption ?? send.text } : {}),
      };
    case 'audio':
      return { type: 'AUDIO', mediaUrl: send.mediaUrl ?? '' };
    case 'location':
      return { type: 'LOCATION', lat: send.lat ?? '0', lng: send.lng ?? '0' };
  }
}

/** What a reply answers: an option's payload, else its text. */
export function answerOf(message: Message): string {
  if (message.type === 'POSTBACK') {
    const p = message.payload as Record<string, unknown>;
    const v = p['payload'] ?? p['value'];
    return typeof v === 'string' ? v : message.text;
  }
  if (message.type === 'TEXT') return message.text.trim();
  if (message.type === 'LOCATION') return `${message.lat},${message.lng}`;
  if ('mediaUrl' in message) return message.mediaUrl;
  return message.type;
}

export interface FlowRunnerDeps {
  db: Db;
  messaging: LiveMessaging;
  files: FlowFile[];
  /** Media addresses the flows can name as `{{assets.<name>}}` (signed, refreshed per use). */
  assets: () => Record<string, string>;
  log: FastifyBaseLogger;
}

const MAX_STEPS_PER_TURN = 50;
/** Reply turns one (room, user) may have waiting; past it the bot does not answer (MAX_QUEUED_TURNS). */
export const MAX_QUEUED_TURNS = 20;
/** How many of the ids of the messages a flow sent a user are kept (a choice on an older one is no longer told from a business's). */
const FLOW_SENT_KEPT = 100;

export function createFlowRunner(deps: FlowRunnerDeps): FlowRunner {
  const { db, messaging, files, log } = deps;
  const queues = new Map<string, Promise<void>>();
  /** Turns waiting or running per (room, user). */
  const depth = new Map<string, number>();
  /** (room, user) pairs whose replies are being skipped (said once in the log). */
  const skipping = new Set<string>();
  let stopping = false;

  const fileFor = (botId: string) =>
    files.find((f) => f.bots.includes(botId)) ?? files.find((f) => f.bots.includes('*'));

  /**
   * Turns of one (room, user) run one after another, in arrival order. A reply turn past
   * MAX_QUEUED_TURNS waiting is not taken (`optional`): users each sending under the socket's
   * rate, more than the store writes, grew the queues without end (1.3 GB in 40 s), and a stop
   * waited minutes for them. A stopping process runs no queued turn.
   */
  function enqueue(
    roomId: string,
    userId: string,
    work: () => Promise<void>,
    optional = false,
  ): Promise<void> {
    const key = `${roomId}\n${userId}`;
    const waiting = depth.get(key) ?? 0;
    if (optional && waiting >= MAX_QUEUED_TURNS) {
      if (!skipping.has(key)) log.warn({ roomId, userId }, 'the bot skips replies: too many waiting');
      skipping.add(key);
      return Promise.resolve();
    }
    depth.set(key, waiting + 1);
    const prev = queues.get(key) ?? Promise.resolve();
    const next = prev
      .then(() => (stopping ? undefined : work()))
      .catch((err: unknown) => log.error({ err, roomId }, 'flow turn failed'))
      .finally(() => settle(key));
    queues.set(key, next);
    void next.then(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
    return next;
  }

  function settle(key: string): void {
    const left = (depth.get(key) ?? 1) - 1;
    if (left > 0) depth.set(key, left);
    else depth.delete(key);
    if (left < MAX_QUEUED_TURNS) skipping.delete(key);
  }

  async function loadState(roomId: string, userId: string): Promise<FlowState | null> {
    const r = await db.query<FlowState>(
      'SELECT flow_id, step_id, waiting, sent, params, answers FROM flow_states WHERE room_id = $1 AND user_id = $2',
      [roomId, userId],
    );
    return r.rows[0] ?? null;
  }

  async function saveState(roomId: string, userId: string, botId: string, s: FlowState): Promise<void> {
    await db.query(
      `INSERT INTO flow_states (room_id, user_id, bot_id, flow_id, step_id, waiting, params, answers, sent, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, now())
       ON CONFLICT (room_id, user_id) DO UPDATE SET bot_id = $3, flow_id = $4, step_id = $5, waiting = $6,
         params = $7::jsonb, answers = $8::jsonb, sent = $9::jsonb, updated_at = now()`,
      [
        roomId,
        userId,
        botId,
        s.flow_id,
        s.step_id,
        s.waiting,
        JSON.stringify(s.params),
        JSON.stringify(s.answers),
        JSON.stringify(s.sent.slice(-FLOW_SENT_KEPT)),
      ],
    );
  }

  async function userScope(roomId: string, userId: string): Promise<Record<string, string>> {
    const r = await db.query<{ names: string | null }>(
      'SELECT names FROM room_members WHERE room_id = $1 AND user_id = $2',
      [roomId, userId],
    );
    return { id: userId, names: r.rows[0]?.names ?? '' };
  }

  /** Runs from a target until a step waits or the flow ends; saves where it stopped. */
  async function run(
    ctx: { roomId: string; botId: string; userId: string },
    state: FlowState,
    target: string,
  ) {
    const file = fileFor(ctx.botId);
    if (!file) return;
    const bot = await db.query<{ name: string }>('SELECT name FROM bots WHERE id = $1', [ctx.botId]);
    const senderNames = bot.rows[0]?.name;
    const user = await userScope(ctx.roomId, ctx.userId);
    let flowId = state.flow_id;
    let index = 0;
    let t: string | null = target;
    for (let n = 0; n < MAX_STEPS_PER_TURN && t !== null; n++) {
      if (t === 'end') break;
      if (t.startsWith('flow:')) {
        flowId = t.slice(5);
        index = 0;
      } else {
        index = flowIn(file, flowId)?.steps.findIndex((s) => s.id === t) ?? -1;
      }
      const flow = flowIn(file, flowId);
      const step = flow?.steps[index];
      if (!flow || !step) break;
      const scope = { params: state.params, answers: state.answers, user, assets: deps.assets() };
      if (step.set) Object.assign(state.params, interpolate(step.set, scope));
      if (step.send) {
        const input = toMessageInput(interpolate(step.send, scope));
        const { message } = await messaging.deliver({
          ...input,
          roomId: ctx.roomId,
          senderId: ctx.botId,
          by: 'bot',
          ...(senderNames ? { senderNames } : {}),
        });
        state.sent.push(String(message.id));
      }
      if (step.wait) {
        await saveState(ctx.roomId, ctx.userId, ctx.botId, {
          ...state,
          flow_id: flowId,
          step_id: step.id,
          waiting: true,
        });
        return;
      }
      t = step.next ?? flow.steps[index + 1]?.id ?? null;
    }
    await saveState(ctx.roomId, ctx.userId, ctx.botId, {
      ...state,
      flow_id: flowId,
      step_id: null,
      waiting: false,
    });
  }

  async function onReply(message: Message, room: { id: string; botId: string }): Promise<void> {
    const file = fileFor(room.botId);
    if (!file) return;
    const ctx = { roomId: room.id, botId: room.botId, userId: message.senderId };
    const state = await loadState(room.id, message.senderId);
    const answer = answerOf(message);
    const payload = message.type === 'POSTBACK' ? (message.payload as Record<string, unknown>) : {};
    // A choice made on a message the flow did not send (options, a call button or a contact form
    // the business sent over the HTTP API) is for whoever sent it: the flow neither takes it as
    // its answer nor starts its fallback over it. A choice on any of the flow's own messages
    // (an older menu too) is the flow's, as before; so is anything when nothing was kept yet.
    const replyTo = typeof payload['replyTo'] === 'string' ? payload['replyTo'] : undefined;
    const sent = state?.sent ?? [];
    const forFlow = replyTo === undefined || sent.length === 0 || sent.includes(replyTo);
    // An option that names a flow starts it, wherever the user is.
    if (typeof payload['flow'] === 'string' && flowIn(file, payload['flow'])) {
      const s = state ?? {
        flow_id: payload['flow'],
        step_id: null,
        waiting: false,
        sent: [],
        params: {},
        answers: {},
      };
      return run(ctx, { ...s, flow_id: payload['flow'] }, `flow:${payload['flow']}`);
    }
    if (!forFlow) return;
    const waitingIn = state?.waiting && state.step_id ? flowIn(file, state.flow_id) : undefined;
    if (state && waitingIn) {
      const flow = waitingIn;
      const index = flow.steps.findIndex((s) => s.id === state.step_id);
      const step = flow.steps[index];
      if (step) {
        state.answers[step.id] = answer;
        const branch = step.branch ?? {};
        const key = Object.keys(branch).find((k) => k.toLowerCase() === answer.toLowerCase());
        const target =
          (key !== undefined ? branch[key] : branch['*']) ?? step.next ?? flow.steps[index + 1]?.id ?? 'end';
        return run(ctx, state, target);
      }
    }
    const fallback = file.fallback ?? file.greeting;
    if (fallback) {
      const s = state ?? {
        flow_id: fallback,
        step_id: null,
        waiting: false,
        sent: [],
        params: {},
        answers: {},
      };
      return run(ctx, { ...s, flow_id: fallback }, `flow:${fallback}`);
    }
  }

  messaging.onPersonMessage = (message, room) => {
    void enqueue(room.id, message.senderId, () => onReply(message, room), true);
  };

  return {
    has: (botId, flowId) => flowIn(fileFor(botId), flowId) !== undefined,
    start({ roomId, botId, userId, flowId, params }) {
      return enqueue(roomId, userId, async () => {
        const prev = await loadState(roomId, userId);
        const state: FlowState = {
          flow_id: flowId,
          step_id: null,
          waiting: false,
          params: { ...(prev?.params ?? {}), ...params },
          answers: prev?.answers ?? {},
          // A flow started anew keeps the ids of what the earlier ones sent: their menus still answer.
          sent: prev?.sent ?? [],
        };
        await run({ roomId, botId, userId }, state, `flow:${flowId}`);
      });
    },
    greet({ roomId, botId, userId, language }) {
      const file = fileFor(botId);
      const greeting = file?.greeting;
      if (!greeting) return;
      const params: Record<string, string> = language ? { language } : {};
      void enqueue(roomId, userId, async () => {
        const claim = await db.query(
          `INSERT INTO flow_states (room_id, user_id, bot_id, flow_id, step_id, waiting, params, answers, updated_at)
           VALUES ($1, $2, $3, $4, NULL, false, $5::jsonb, '{}'::jsonb, now())
           ON CONFLICT (room_id, user_id) DO NOTHING RETURNING 1`,
          [roomId, userId, botId, greeting, JSON.stringify(params)],
        );
        if (claim.rows.length === 0) return;
        const state: FlowState = {
          flow_id: greeting,
          step_id: null,
          waiting: false,
          sent: [],
          params,
          answers: {},
        };
        try {
          await run({ roomId, botId, userId }, state, `flow:${greeting}`);
        } catch (err) {
          // Nothing of the greeting was stored (its first message failed: the database out of
          // reach, a refused write): the claim is given back, so the visitor's next session
          // greets them instead of never. Once a message of the bot's is in the room, it stays.
          if (state.sent.length === 0) {
            await db
              .query(
                `DELETE FROM flow_states f WHERE f.room_id = $1 AND f.user_id = $2 AND f.step_id IS NULL
                   AND NOT f.waiting AND f.sent = '[]'::jsonb
                   AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.room_id = $1 AND m.sender_id = $3
                     AND m.created_at >= f.updated_at)`,
                [roomId, userId, botId],
              )
              .catch((releaseErr: unknown) =>
                log.warn(
                  { err: releaseErr, roomId },
                  'the greeting could not be given back for a later session',
                ),
              );
          }
          throw err;
        }
      });
    },
    async idle() {
      while (queues.size > 0) await Promise.all([...queues.values()]);
    },
    stop() {
      stopping = true;
    },
  };
}
