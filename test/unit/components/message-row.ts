/**
 * A `<charla-message>` as the message list holds it: in a shadow root whose host carries the
 * WidgetContext (rows read the room's messages through it).
 */
import '../../../src/define.ts';
import type { CharlaMessage } from '../../../src/components/message/message.ts';
import type { WidgetContext } from '../../../src/widget/context.ts';
import type { Message } from '../../../types/index.ts';
import { makeContext, settle } from './fixture.ts';

class RowHost extends HTMLElement {
  context?: WidgetContext;
  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
  }
}
if (!customElements.get('test-row-host')) customElements.define('test-row-host', RowHost);

/** Mounts `message` in a stand-in list whose context `setup` may fill first. */
export async function mountRow(
  message: Message,
  props: Partial<CharlaMessage> = {},
  setup: (f: ReturnType<typeof makeContext>) => void = () => undefined,
) {
  const f = makeContext();
  setup(f);
  const host = document.createElement('test-row-host') as RowHost;
  host.context = f.context;
  document.body.append(host);
  const el = document.createElement('charla-message') as CharlaMessage;
  Object.assign(el, { message, actions: f.context.actions, ...props });
  host.shadowRoot!.append(el);
  await settle(el);
  return { el, ...f };
}
