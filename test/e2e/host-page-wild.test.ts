/**
 * Journey: customer sites built the way real ones are, on another origin than the service, with
 * the documented script tag (the findings of a probe of "the wild web"): an old library's
 * Element scrollTo (Prototype.js, MooTools), keyboard shortcuts that skip text fields by the
 * event's target, a router that swaps the whole <body> (Turbo Drive) and a cached copy of it, a
 * grid body with `body > *` rules, printing, and a Permissions-Policy without microphone and
 * location. Each time the widget keeps working and the page keeps its own behaviour and layout.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  botRoomOf,
  launcher,
  messageInput,
  messagesRegion,
  need,
  openPage,
  ownMessage,
  roomMessages,
  uniqueUser,
  unexpected,
  until,
} from './helpers.ts';
import {
  documentedTag,
  firstWidgetReady,
  hostileSite,
  placement,
  shopPage,
  themedWidget,
} from './host-page-site.ts';

const site = hostileSite();

/** A page of the customer's site: `head`, then `body` and the documented tag (unless `tag` is false). */
async function visit(
  name: string,
  { head = '', body = '<main><h1>Tienda</h1></main>', tag = true, headers = {} as Record<string, string> },
): Promise<{ page: Page; problems: string[]; userId: string }> {
  const key = await themedWidget(site.service);
  const userId = uniqueUser('wild');
  const html = shopPage(site.service, key, {
    head: `<link rel="icon" href="data:,">${head}`,
    body,
    userId,
    tag: tag ? '' : false,
  });
  const { page, problems } = await openPage(site.browser, site.page(name, html, undefined, headers));
  if (tag) await firstWidgetReady(page);
  return { page, problems, userId };
}

/** A page in a browser where the widget's full bundle never arrives: the loader's launcher alone. */
async function bundleHeld(name: string, html: string): Promise<Page> {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/charla.iife.js', () => undefined);
  const page = await context.newPage();
  // goto waits for the page's load event (a bundle fetched at once would hold it).
  await page.goto(site.page(name, html), { timeout: 10_000 });
  return page;
}

/** The chat opened from the launcher, the demo bot's greeting shown. */
async function openChat(page: Page): Promise<void> {
  await launcher(page).click();
  await need(messagesRegion(page).getByText(/Soy el bot de demostración de Charla/), 'the bot’s greeting');
}

/** How far the message list is from its end, in pixels. */
function fromEnd(page: Page): Promise<number> {
  return messagesRegion(page).evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop);
}

/** Sends `text` from the composer and waits for the service to store it. */
async function sends(page: Page, userId: string, text: string): Promise<void> {
  await messageInput(page).fill(text);
  await messageInput(page).press('Enter');
  const roomId = await until('the bot room', () => botRoomOf(site.service.app, userId));
  await until('the text stored', async () =>
    (await roomMessages(site.service.app, roomId)).find((m) => m['text'] === text),
  );
}

describe('journey: customer sites as real ones are', () => {
  for (const [name, script] of [
    [
      // Prototype 1.7's Element.scrollTo, copied onto every element: scrolls the window to the element.
      'Prototype.js',
      `HTMLElement.prototype.scrollTo = function () { var e = this, t = 0, l = 0;
         do { t += e.offsetTop || 0; l += e.offsetLeft || 0; e = e.offsetParent; } while (e);
         window.scrollTo(l, t); return this; };`,
    ],
    [
      // MooTools' Element.scrollTo(x, y): an options object is no number.
      'MooTools',
      `Element.prototype.scrollTo = function (x, y) { this.scrollLeft = x; this.scrollTop = y; return this; };`,
    ],
  ] as const) {
    it(`${name}'s Element scrollTo: the page stays where it was, the list opens and stays on its newest messages`, async () => {
      const { page, problems, userId } = await visit(`scrollto-${name.replace(/\W/g, '')}`, {
        head: `<script>${script}</script>`,
        body: '<main style="height:6000px"><h1>Tienda</h1></main>',
      });
      await page.evaluate(() => window.scrollTo(0, 3000));
      await openChat(page);
      // Pinned to its end (it stayed at 0, its oldest message, with the page's scrollTo).
      await until('the list on its end', async () => ((await fromEnd(page)) < 2 ? true : undefined));
      const text = `¿Hay pan? ${Date.now()}`;
      await sends(page, userId, text);
      // The bot's answer (its menu again) arrives below it and shows, from its top (the list had stayed at its start).
      await need(
        messagesRegion(page)
          .getByText(/No te entendí/)
          .last(),
        'the bot’s answer',
      );
      await until('the newest message in view', async () => {
        const [m, v] = [
          await messagesRegion(page).locator('charla-message').last().boundingBox(),
          await messagesRegion(page).boundingBox(),
        ];
        return m && v && m.y >= v.y - 1 && m.y < v.y + v.height - 20 ? true : undefined;
      });
      // Prototype's scrolled the page to the chat's element (3000 to 68).
      expect(await page.evaluate(() => window.scrollY)).toBe(3000);
      expect(unexpected(problems)).toEqual([]);
      await page.context().close();
    });
  }

  it('the page’s keyboard shortcuts (space, k, /) never take what is typed in the chat', async () => {
    // The usual guard of a page's shortcuts: not while the target is a text field. Outside the
    // widget's shadow root the target is the widget's element, so the guard let them through.
    const { page, problems, userId } = await visit('shortcuts', {
      head: `<script>window.__toggles = 0;
        document.addEventListener('keydown', (e) => {
          const t = e.target;
          if (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable) return;
          if (e.key === ' ' || e.key === 'k') { e.preventDefault(); window.__toggles++; }
          if (e.key === '/') { e.preventDefault(); document.getElementById('search').focus(); }
        });</script>`,
      body: '<main><h1>Tienda</h1><input id="search" aria-label="Buscar"></main>',
    });
    await openChat(page);
    await messageInput(page).click();
    const text = 'busco pan sin gluten k/s https://shop.example/a b';
    await page.keyboard.type(text);
    expect(await messageInput(page).inputValue()).toBe(text);
    expect(await page.evaluate(() => (window as unknown as { __toggles: number }).__toggles)).toBe(0);
    expect(await page.locator('#search').inputValue()).toBe('');
    await page.keyboard.press('Enter');
    await sends(page, userId, 'y con semillas');
    // On the page itself the shortcuts work as before.
    await page.locator('h1').click();
    await page.keyboard.press('k');
    expect(await page.evaluate(() => (window as unknown as { __toggles: number }).__toggles)).toBe(1);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });

  it('a router that swaps the whole <body> (Turbo Drive): the widget follows with its conversation; a cached copy shows no second launcher', async () => {
    const { page, problems, userId } = await visit('body-swap', {});
    await openChat(page);
    const before = `Antes ${Date.now()}`;
    await sends(page, userId, before);
    // As Turbo Drive renders a visit: the next page's body in place of this one, then its scripts
    // made again so they run (the documented tag among them).
    await page.evaluate(async () => {
      const next = new DOMParser().parseFromString(
        await (await fetch(location.href)).text(),
        'text/html',
      ).body;
      next.querySelector('h1')!.textContent = 'Página 2';
      history.pushState({}, '', '?p=2');
      document.documentElement.replaceChild(document.adoptNode(next), document.body);
      const ran: Promise<unknown>[] = [];
      for (const old of document.body.querySelectorAll('script')) {
        const s = document.createElement('script');
        for (const a of old.attributes) s.setAttribute(a.name, a.value);
        ran.push(new Promise((r) => s.addEventListener('load', r)));
        old.replaceWith(s);
      }
      await Promise.all(ran);
    });
    await need(page.getByRole('heading', { name: 'Página 2' }), 'the second page');
    // The same widget, in the new body, its panel still open on the conversation; the tag that ran
    // again is the same tag (one widget).
    await need(ownMessage(page, before), 'the conversation after the swap');
    const state = () =>
      page.evaluate(() => ({
        elements: document.querySelectorAll('charla-widget').length,
        inBody: document.querySelector('charla-widget')?.parentNode === document.body,
        drawn: document.querySelector('charla-widget')?.shadowRoot?.querySelectorAll('.launcher').length,
        widgets: (window as unknown as { Charla: { widgets: unknown[] } }).Charla.widgets.length,
      }));
    expect(await state()).toEqual({ elements: 1, inBody: true, drawn: 1, widgets: 1 });
    await sends(page, userId, `Después ${Date.now()}`);
    // Back and forth between pages of Turbo's cache: copies of bodies, the widget's element copied
    // with them. The copies go (they drew a second, unavailable launcher, one more each time).
    for (const title of ['Página 1', 'Página 2', 'Página 1']) {
      await page.evaluate((title) => {
        const copy = document.body.cloneNode(true) as HTMLElement;
        copy.querySelector('h1')!.textContent = title;
        document.documentElement.replaceChild(copy, document.body);
      }, title);
      await need(page.getByRole('heading', { name: title }), title);
      await until('the widget in the new body', async () => ((await state()).inBody ? true : undefined));
      expect(await state()).toEqual({ elements: 1, inBody: true, drawn: 1, widgets: 1 });
    }
    await need(
      messagesRegion(page)
        .getByText(/No te entendí/)
        .last(),
      'the conversation after the swaps',
    );
    await sends(page, userId, `Al volver ${Date.now()}`);
    // Taken out by the page itself (its body stays), the widget stays out.
    await page.evaluate(() => document.querySelectorAll('charla-widget').forEach((w) => w.remove()));
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => document.querySelectorAll('charla-widget').length)).toBe(0);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });

  it('a grid body with `body > *` rules: the page lays out the same with the widget as without', async () => {
    const layout = `<style>html,body{margin:0}
      body{min-height:100vh;display:grid;grid-template-rows:auto 1fr auto;gap:16px}
      body > *{padding:6px!important;border:3px solid #c00!important;margin:2px!important;
        position:relative!important;min-height:20px!important;box-shadow:0 0 0 9px #c00!important}</style>`;
    const body =
      '<header>Tienda</header><main id="main"><h1>Ofertas</h1></main><footer id="footer">Pie</footer>';
    const rects = (page: Page) =>
      page.evaluate(() =>
        ['main', 'footer'].map((id) => {
          const r = document.getElementById(id)!.getBoundingClientRect();
          return [r.x, r.y, r.width, r.height];
        }),
      );
    const plain = await visit('grid-plain', { head: layout, body, tag: false });
    const without = await rects(plain.page);
    await plain.page.context().close();
    // The loader's launcher alone (the full bundle held back).
    const loading = await bundleHeld(
      'grid-loader',
      shopPage(site.service, await themedWidget(site.service), { head: layout, body }),
    );
    await need(launcher(loading), 'the loader’s launcher');
    expect(await rects(loading)).toEqual(without);
    await loading.emulateMedia({ media: 'print' });
    expect(await placement(loading, 'launcher')).toBeNull();
    await loading.context().close();
    const { page, problems } = await visit('grid-widget', { head: layout, body });
    expect(await rects(page)).toEqual(without);
    // The element draws no box of its own (the rules gave it borders, a row and a gap).
    expect(
      await page.evaluate(() => {
        const r = document.querySelector('charla-widget')!.getBoundingClientRect();
        return [r.width, r.height];
      }),
    ).toEqual([0, 0]);
    await openChat(page);
    expect(await rects(page)).toEqual(without);
    expect((await placement(page, 'panel'))?.top).toBe(true);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });

  it('a plain tag in <head>: the loader’s launcher shows once there is a body, and the page loads without the bundle', async () => {
    const key = await themedWidget(site.service);
    // The page's load event is not held by the bundle (it was fetched at once from <head>).
    const page = await bundleHeld(
      'head-tag',
      shopPage(site.service, key, { head: documentedTag(site.service, key), tag: false }),
    );
    await need(launcher(page), 'the loader’s launcher');
    expect(
      await page.evaluate(() => document.querySelector('charla-loader')?.parentNode === document.body),
    ).toBe(true);
    await page.context().close();
  });

  it('printed, the page shows without the launcher or the open panel over it', async () => {
    const { page, problems } = await visit('print', {});
    expect(await placement(page, 'launcher')).not.toBeNull();
    await page.emulateMedia({ media: 'print' });
    expect(await placement(page, 'launcher')).toBeNull();
    await page.emulateMedia({ media: 'screen' });
    await openChat(page);
    await page.emulateMedia({ media: 'print' });
    expect(await placement(page, 'panel')).toBeNull();
    expect(await placement(page, 'launcher')).toBeNull();
    await page.emulateMedia({ media: 'screen' });
    expect((await placement(page, 'panel'))?.top).toBe(true);
    expect(unexpected(problems)).toEqual([]);
    await page.context().close();
  });

  it('a Permissions-Policy without microphone and location: their buttons are not offered; the others are', async () => {
    const { page, problems } = await visit('no-mic', {
      headers: { 'permissions-policy': 'microphone=(), geolocation=()' },
    });
    await openChat(page);
    await need(page.getByRole('button', { name: 'Adjuntar imagen o documento' }), 'the attach button');
    expect(await page.getByRole('button', { name: 'Grabar audio' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Compartir ubicación' }).count()).toBe(0);
    await page.context().close();
    // Without the policy both are there.
    const plain = await visit('with-mic', {});
    await openChat(plain.page);
    await need(plain.page.getByRole('button', { name: 'Grabar audio' }), 'the mic button');
    await need(plain.page.getByRole('button', { name: 'Compartir ubicación' }), 'the location button');
    expect(unexpected([...problems, ...plain.problems])).toEqual([]);
    await plain.page.context().close();
  });
});
