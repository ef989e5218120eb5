/**
 * What every part of the service shares, hung on the fastify instance as
 * `app.charla`. The HTTP routes (server/routes/) and the live side
 * (server/live/) meet here: routes hand messages to `messaging`, which the
 * live side implements (store idempotently, sequence, broadcast, run the bot).
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './store/db.ts';
import type { Signer } from './signing.ts';
import type {
  Interactive,
  Message,
  MessageBy,
  MessageOption,
  MessageType,
  QuickReply,
} from '../types/index.ts';

/** A message to store: the type's fields plus who sent it. */
export interface NewMessageInput {
  /** UUID; the idempotency key. Made when absent. */
  id?: string;
  roomId: string;
  senderId: string;
  by: MessageBy;
  senderNames?: string;
  type: MessageType;
  text?: string;
  mediaUrl?: string;
  caption?: string;
  lat?: string;
  lng?: string;
  payload?: Record<string, unknown>;
  slug?: string;
  description?: string;
  eventPayload?: Record<string, string>;
  options?: MessageOption[];
  QuickReplies?: QuickReply[];
  interactive?: Interactive;
}

export interface Messaging {
  /** The room of a bot and a user, created on first need with both as members. */
  ensureBotRoom(input: { botId: string; userId: string; userNames?: string }): Promise<{ roomId: string }>;
  /**
   * The room's id, company and type, its bot and the bot's name, or null when there is no such
   * room; given a sender, that sender's name when it is a bot of the room's company (any room).
   */
  findRoom(
    roomId: string,
    senderId?: string,
  ): Promise<{
    id: string;
    companyId: string;
    type: string;
    botId: string | null;
    botName: string | null;
    senderBotName?: string | null;
  } | null>;
  /**
   * Stores idempotently by id (a second call with the same id stores nothing
   * and returns the stored copy with duplicate true), gives the room's next
   * sequence number, broadcasts to every member socket, and lets the room's bot
   * answer when a user wrote.
   */
  deliver(input: NewMessageInput): Promise<{ message: Message; duplicate: boolean }>;
  /**
   * Several messages into one room, all or nothing: stored in one transaction
   * (each id once, duplicates being those already in this room), then
   * broadcast. When an id is taken by a message of another room (even one
   * stored a moment ago by a concurrent request), nothing is stored and
   * `clash` names those ids; when it is taken by another message of this room
   * (other sender, type or content), nothing is stored and `conflict` names them.
   */
  deliverAll(
    roomId: string,
    inputs: NewMessageInput[],
  ): Promise<{
    results: { message: Message; duplicate: boolean }[];
    clash: string[];
    conflict: string[];
  }>;
}

export interface Charla {
  config: Config;
  db: Db;
  signer: Signer;
  /** Set by the live plugin during registration; use it in handlers only. */
  messaging: Messaging;
  /** The base URL clients reach this service at (config.publicBaseUrl, or the request's own). */
  baseUrlFor(request?: FastifyRequest): string;
  /** Base URLs whose media addresses are ours (for signing and refresh). */
  ownBaseUrls(request?: FastifyRequest): string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    charla: Charla;
  }
}
