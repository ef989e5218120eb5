/**
 * The SPA demo: a travel agency that imports Charla's ESM build
 * (`import { createWidget } from 'charla'`), creates one widget when the
 * app starts, and keeps it while routes change with history.pushState: the
 * conversation, the socket and the open panel survive every navigation.
 */
import { createWidget, type WidgetInstance } from '../../src/index.ts';
import { DEMO_NORMAL_API_KEY } from './config.ts';
import { byId, h } from './dom.ts';

/** Changes only on a real page load, so a test (or a person) can see there was none. */
const pageLoadId = Math.random().toString(36).slice(2, 10);
let navigations = 0;
let received = 0;

const widget: WidgetInstance = createWidget({
  apiKey: DEMO_NORMAL_API_KEY,
  baseUrl: location.origin,
  userNames: 'Visitante SPA',
  language: 'es',
});
// For the console of the browser and for tests: the one instance of this app.
(window as unknown as { spaWidget: WidgetInstance }).spaWidget = widget;

widget.stores.$connection.subscribe((state) => {
  byId('connection').textContent = state;
});
widget.on('message', () => {
  received += 1;
  byId('message-count').textContent = String(received);
});
widget.connect().catch((error: unknown) => {
  byId('connection').textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
});

const DESTINATIONS = [
  { id: 'lisboa', name: 'Lisboa', text: 'Tranvías, miradores y pastéis de nata. 3 noches desde 289 €.' },
  { id: 'oaxaca', name: 'Oaxaca', text: 'Mercados, mezcal y Monte Albán. 9 noches desde 1.240 €.' },
  { id: 'kioto', name: 'Kioto', text: 'Templos, jardines y ryokan. 7 noches desde 1.690 €.' },
];

function ask(text: string): void {
  widget.open();
  // Straight to the conversation, whatever view the panel was left in.
  widget.hideHomeMenu();
  widget
    .sendMessage({ type: 'TEXT', text })
    .catch((error: unknown) => console.error('charla sendMessage', error));
}

type View = () => Node[];

const ROUTES: Record<string, { title: string; view: View }> = {
  '/spa/': {
    title: 'Inicio',
    view: () => [
      h(
        'section',
        { class: 'spa-hero' },
        h('h1', {}, 'Viajes con calma, planeados contigo'),
        h('p', {}, 'Cambia de sección: la conversación del chat sigue donde estaba, sin recargar la página.'),
        h('p', {}, h('a', { class: 'button', href: '/spa/destinos', 'data-route': true }, 'Ver destinos')),
      ),
    ],
  },
  '/spa/destinos': {
    title: 'Destinos',
    view: () => [
      h('h1', {}, 'Destinos'),
      h(
        'ul',
        { class: 'cards' },
        ...DESTINATIONS.map((d) => {
          const button = h('button', { type: 'button', class: 'button' }, `Preguntar por ${d.name}`);
          button.addEventListener('click', () => ask(`¿Quedan plazas para ${d.name}?`));
          return h('li', { class: 'card' }, h('h2', {}, d.name), h('p', {}, d.text), button);
        }),
      ),
    ],
  },
  '/spa/reserva': {
    title: 'Reserva',
    view: () => {
      const destination = h(
        'select',
        { id: 'booking-destination', name: 'destination' },
        ...DESTINATIONS.map((d) => h('option', { value: d.id }, d.name)),
      );
      const people = h('input', {
        id: 'booking-people',
        name: 'people',
        type: 'number',
        min: '1',
        max: '9',
        value: '2',
      });
      const done = h('p', { role: 'status', id: 'booking-status' });
      const form = h(
        'form',
        { class: 'booking', 'aria-label': 'Reserva' },
        h('label', { for: 'booking-destination' }, 'Destino'),
        destination,
        h('label', { for: 'booking-people' }, 'Personas'),
        people,
        h('button', { type: 'submit', class: 'button' }, 'Pedir presupuesto por el chat'),
        done,
      );
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const name = DESTINATIONS.find((d) => d.id === destination.value)?.name ?? destination.value;
        // An EVENT message tells the bot (and the agent) what happened on the page.
        widget
          .sendMessage({
            type: 'EVENT',
            slug: 'quote_requested',
            description: `Presupuesto pedido: ${name}, ${people.value} personas`,
            eventPayload: { destination: destination.value, people: people.value },
          })
          .then(() => {
            done.textContent = 'Enviado: te respondemos en el chat.';
            widget.open();
          })
          .catch((error: unknown) => {
            done.textContent = `No se pudo enviar: ${error instanceof Error ? error.message : String(error)}`;
          });
      });
      return [h('h1', {}, 'Reserva'), form];
    },
  },
  '/spa/ayuda': {
    title: 'Ayuda',
    view: () => {
      const open = h('button', { type: 'button', class: 'button' }, 'Abrir el chat');
      open.addEventListener('click', () => widget.open());
      const close = h('button', { type: 'button', class: 'button secondary' }, 'Cerrar el chat');
      close.addEventListener('click', () => widget.close());
      return [
        h('h1', {}, 'Ayuda'),
        h(
          'p',
          {},
          'Estos botones llaman a widgetInstance.open() y widgetInstance.close() desde la aplicación.',
        ),
        h('p', { class: 'actions' }, open, close),
      ];
    },
  },
};

function currentPath(): string {
  const path =
    location.pathname === '/spa.html' || location.pathname === '/spa' ? '/spa/' : location.pathname;
  return ROUTES[path] ? path : '/spa/';
}

function render(): void {
  const path = currentPath();
  const route = ROUTES[path] ?? ROUTES['/spa/']!;
  const main = byId('view');
  main.replaceChildren(...route.view());
  document.title = `${route.title} · Rumbo Viajes`;
  for (const a of byId('spa-nav').querySelectorAll('a')) {
    if (a.getAttribute('href') === path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function navigate(href: string): void {
  const url = new URL(href, location.href);
  if (url.pathname === location.pathname) return;
  history.pushState({}, '', url.pathname);
  navigations += 1;
  byId('nav-count').textContent = String(navigations);
  render();
  byId('view').focus();
}

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  const link = (event.target as Element | null)?.closest?.('a[data-route]');
  if (!(link instanceof HTMLAnchorElement)) return;
  event.preventDefault();
  navigate(link.href);
});
window.addEventListener('popstate', () => {
  navigations += 1;
  byId('nav-count').textContent = String(navigations);
  render();
});

byId('page-load-id').textContent = pageLoadId;
if (location.pathname !== currentPath()) history.replaceState({}, '', currentPath());
render();
