/**
 * A `<charla-message>` as the message list holds it: in a shadow root (a row has none of its own),
 * handed its message, the actions and what the list works out for it.
 */
import '../../../src/define.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import type { Message } from '../../../types/index.ts';
import { makeContext, settle } from './fixture.ts';

class RowHost extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
  }
}
if (!customElements.get('test-row-host')) customElements.define('test-row-host', RowHost);

/** Mounts `message` in a stand-in list's shadow root. */
export async function mountRow(message: Message, props: Partial<CharlaMessage> = {}) {
  const f = makeContext();
  const host = document.createElement('test-row-host') as RowHost;
  document.body.append(host);
  const el = document.createElement('charla-message') as CharlaMessage;
  Object.assign(el, { message, actions: f.context.actions, ...props });
  host.shadowRoot!.append(el);
  await settle(el);
  return { el, ...f };
}
