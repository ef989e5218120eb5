/**
 * The visitor's answer to a message that asks for one (options, a call button): the POSTBACK whose
 * payload.replyTo is the message's id, looked up in the room's messages. The answer lives in the
 * store, so a reload, another tab or a row made anew as it scrolls back into view shows it too.
 *
 * A row (`<charla-message>`) is handed its message and the actions only: it reads the room's
 * messages from the WidgetContext of the element whose shadow root holds it (the message list).
 * Only rows that ask subscribe, and only until their answer is there (an answer never goes away).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Message, PostbackMessage } from '../../types/index.ts';
import type { WidgetContext } from '../widget/context.ts';

/** The WidgetContext of the nearest enclosing shadow root's host that holds one. */
export function enclosingContext(from: Node): WidgetContext | undefined {
  for (let root = from.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
    const context = (root.host as { context?: WidgetContext }).context;
    if (context) return context;
  }
  return undefined;
}

/** The answer to `m` among `messages`: searched from the newest back to `m` itself. */
export function answerTo(messages: readonly Message[], m: Message): PostbackMessage | undefined {
  const id = String(m.id);
  for (let i = messages.length - 1; i >= 0; i--) {
    const a = messages[i]!;
    if (String(a.id) === id) return undefined;
    if (a.type === 'POSTBACK' && a.payload?.['replyTo'] === id) return a;
  }
  return undefined;
}

export class AnswerController implements ReactiveController {
  /** The answer, once the room holds it. */
  answer: PostbackMessage | undefined;
  #id: string | undefined;
  #off: (() => void) | undefined;

  constructor(
    private readonly host: ReactiveControllerHost & Element,
    /** The host's message when it asks for an answer, else undefined. */
    private readonly asking: () => Message | undefined,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.#watch();
  }

  /** Before each render: the row may have been handed another message. */
  hostUpdate(): void {
    this.#watch();
  }

  hostDisconnected(): void {
    this.#stop();
  }

  #watch(): void {
    const m = this.asking();
    const id = m && String(m.id);
    if (id !== this.#id) {
      this.#stop();
      this.#id = id;
      this.answer = undefined;
    }
    if (!m || this.answer || this.#off || !this.host.isConnected) return;
    const store = enclosingContext(this.host)?.stores.$currentMessages;
    // subscribe() calls back at once: a row made for an answered message renders it answered.
    const off = store?.subscribe((messages) => {
      const answer = answerTo(messages, m);
      if (!answer) return;
      this.answer = answer;
      this.#stop();
      this.host.requestUpdate();
    });
    if (this.answer) off?.();
    else this.#off = off;
  }

  #stop(): void {
    this.#off?.();
    this.#off = undefined;
  }
}
