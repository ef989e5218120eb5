/**
 * The page script of the CSP test (bundled by csp.test.ts, served as a
 * same-origin file): every view and every kind of message of the widget UI,
 * under `script-src 'self'; style-src 'self'; require-trusted-types-for 'script'`.
 */
import '../../src/define.ts';
import type { CharlaWidget } from '../../src/components/widget/widget.ts';
import { makeContext, msg, room } from '../unit/components/fixture.ts';

type Report = { violations: string[]; errors: string[]; steps: Record<string, number>; done: boolean };
const report: Report = { violations: [], errors: [], steps: {}, done: false };
(window as unknown as { __csp: Report }).__csp = report;
document.addEventListener('securitypolicyviolation', (e) => {
  report.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
window.addEventListener('error', (e) => report.errors.push(String(e.message)));

const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
const count = (root: Element, selector: string): number => {
  let n = 0;
  const walk = (r: ParentNode) => {
    n += r.querySelectorAll(selector).length;
    for (const el of r.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(root.shadowRoot ?? root);
  return n;
};

async function main(): Promise<void> {
  const f = makeContext({
    ui: { open: false, view: 'home' },
    config: {
      properties: { type: 'group', name: 'Acme' },
      theme: { primaryColor: '#0f766e', position: 'bl', status: true },
    },
  });
  f.stores.$rooms.set([
    room({ name: 'Soporte', lastMessage: msg({ text: 'Hola' }) }),
    room({ id: 'r2', name: 'Ventas' }),
  ]);
  f.stores.$contacts.set([{ id: 'u1', names: 'Ana' }]);
  f.stores.$roomContacts.set([{ id: 'u2', names: 'Luis' }]);
  f.stores.$currentMessages.set([
    msg({ text: 'Hola https://example.com', senderNames: 'Bot' }),
    msg({ text: 'Mío', senderId: 'me', by: 'user', status: 'FAILED' }),
    msg({ type: 'IMAGE', mediaUrl: `${location.origin}/pixel.png`, caption: 'Foto' }),
    msg({ type: 'AUDIO', mediaUrl: `${location.origin}/none.webm` }),
    msg({ type: 'VIDEO', mediaUrl: `${location.origin}/none.mp4`, caption: 'Vídeo' }),
    msg({ type: 'DOCUMENT', mediaUrl: `${location.origin}/doc.pdf` }),
    msg({ type: 'LOCATION', lat: '40.4', lng: '-3.7' }),
    msg({ type: 'POSTBACK', text: 'Planes', payload: {} }),
    msg({ type: 'EVENT', slug: 'x', description: 'Ana se unió', eventPayload: {} }),
    msg({
      text: 'Elige',
      options: [{ type: 'postback', title: 'A', description: 'a', payload: {}, order: 0 }],
    }),
    msg({
      text: '',
      interactive: {
        kind: 'contacts',
        contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ phone: '+34600111222' }] }],
      },
    }),
    msg({ text: 'Llamar', interactive: { kind: 'voice_call', displayText: 'Llamar' } }),
    msg({ text: 'Datos', interactive: { kind: 'contact_info_request' } }),
    msg({ text: '¿Algo más?', QuickReplies: [{ title: 'Sí', payload: {}, contentType: 'text' }] }),
  ]);
  f.stores.$uploads.set([{ id: 'u', name: 'foto.png', progress: 0.3 }]);
  const widget = document.createElement('charla-widget') as CharlaWidget;
  widget.context = f.context;
  document.body.append(widget);
  await widget.updateComplete;
  report.steps['launcher'] = count(widget, '[part=launcher]');
  f.context.actions.open();
  await frame();
  report.steps['home'] = count(widget, 'charla-home-menu');
  f.context.actions.showRoomContacts();
  await frame();
  report.steps['roomContacts'] = count(widget, 'charla-room-contacts');
  f.context.actions.hideHomeMenu();
  for (let i = 0; i < 10; i++) await frame();
  // Every row is rendered at some point: bottom first, then scrolled to the top.
  const list = widget
    .shadowRoot!.querySelector('charla-chat')!
    .shadowRoot!.querySelector('charla-message-list')!.shadowRoot!;
  const keys = new Set<string>();
  const collect = () =>
    list.querySelectorAll('charla-message').forEach((m) => keys.add(m.getAttribute('data-key') ?? ''));
  collect();
  const scroller = list.querySelector<HTMLElement>('.scroller')!;
  for (const at of [0.5, 0]) {
    scroller.scrollTop = (scroller.scrollHeight - scroller.clientHeight) * at;
    for (let i = 0; i < 6; i++) await frame();
    collect();
  }
  report.steps['messages'] = keys.size;
  report.steps['messagesHeld'] = f.stores.$currentMessages.get().length;
  // The composer grows through the CSSOM (allowed): type several lines.
  const area = widget
    .shadowRoot!.querySelector('charla-chat')!
    .shadowRoot!.querySelector('charla-composer')!
    .shadowRoot!.querySelector('textarea')!;
  area.value = 'a\nb\nc\nd';
  area.dispatchEvent(new Event('input'));
  for (let i = 0; i < 5; i++) await frame();
  report.done = true;
}

main().catch((e: unknown) => {
  report.errors.push(String(e));
  report.done = true;
});
