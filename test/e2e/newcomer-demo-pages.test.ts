/**
 * A newcomer's first hour on the demo pages, against the real service: axe (WCAG 2.2 AA and best
 * practices) finds nothing in the pages' own content (the widget has its own tests), every link
 * answers, the group page's own buttons are not under the widget's panel, the group user's page
 * says what it is part of when opened alone, and every QA console operation run with its defaults
 * shows a result or a readable error without leaving the console's user out of its conversation.
 */
import { describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import {
  WCAG_AA,
  axeViolations,
  cspViolations,
  openPage,
  runConsoleForm,
  uniqueUser,
  unexpected,
  until,
  withServiceAndBrowser,
  type Service,
} from './helpers.ts';

let service: Service;
let browser: Browser;
withServiceAndBrowser((o) => ({ service, browser } = o));

/** axe on a frame's own content, outside the widget (WCAG 2.2 AA and best practices). */
function pageAxeViolations(frame: Frame): Promise<string[]> {
  return axeViolations(
    frame,
    { exclude: [['charla-widget']] },
    {
      tags: [...WCAG_AA, 'best-practice'],
      // The widget's own <header> elements count as banners beside the page's (see the report).
      rules: { 'landmark-no-duplicate-banner': { enabled: false } },
    },
  );
}

/** Waits for the widget on the page, or in each of the group page's frames. */
async function settled(page: Page): Promise<void> {
  const frames = await page.locator('iframe').count();
  if (frames === 0) {
    await page.locator('charla-widget, charla-loader').first().waitFor({ state: 'attached' });
    return;
  }
  for (let i = 0; i < frames; i++)
    await page.frameLocator('iframe').nth(i).locator('charla-widget').waitFor({ state: 'attached' });
}

describe('the demo pages, as a newcomer finds them', () => {
  it.each(['/', '/spa/', '/spa/destinos', '/group.html', '/group-user.html?user=carol', '/console.html'])(
    '%s: axe finds nothing in the page’s own content; every link answers',
    async (path) => {
      const { page, problems, context } = await openPage(browser, `${service.base}${path}`);
      try {
        await settled(page);
        const frames = page.frames();
        const found: string[] = [];
        const links = new Set<string>();
        for (const frame of frames) {
          await frame.waitForLoadState();
          for (const v of await pageAxeViolations(frame)) found.push(`${frame.url()} ${v}`);
          for (const href of await frame.evaluate(() =>
            [...document.querySelectorAll<HTMLAnchorElement>('a[href]')].map((a) => a.href),
          ))
            links.add(href.replace(/#.*$/, ''));
        }
        expect(found).toEqual([]);
        for (const href of links) {
          if (!href.startsWith(service.base)) continue;
          expect((await fetch(href)).status, href).toBe(200);
        }
        expect(await cspViolations(page)).toEqual([]);
        expect(unexpected(problems)).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it('/group.html: each user’s own buttons stay clear of the open panel', async () => {
    const { page, context } = await openPage(browser, `${service.base}/group.html`);
    try {
      for (const name of ['alice', 'bob']) {
        const frame = page.frameLocator(`iframe[name="${name}"]`);
        await until(`${name}'s panel open`, async () =>
          (await frame.locator('charla-widget').getByRole('dialog').isVisible()) ? true : undefined,
        );
        await until(`${name}'s buttons`, async () =>
          (await frame.locator('#open-with button').count()) === 3 ? true : undefined,
        );
        const covered = await frame.locator('body').evaluate(() =>
          [...document.querySelectorAll<HTMLElement>('.host-actions button')]
            .filter((b) => {
              const r = b.getBoundingClientRect();
              return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) !== b;
            })
            .map((b) => b.textContent),
        );
        expect(covered, `${name}'s buttons under the panel`).toEqual([]);
      }
      // In its frame, the user's page does not introduce itself again.
      expect(await page.frameLocator('iframe[name="alice"]').locator('#standalone').isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('/group-user.html alone says it is half of the group chat, and links there', async () => {
    const { page, context } = await openPage(browser, `${service.base}/group-user.html?user=dave`);
    try {
      const note = page.locator('#standalone');
      await until('the note', async () => ((await note.isVisible()) ? true : undefined));
      expect(await note.getByRole('link', { name: 'chat de grupo' }).getAttribute('href')).toBe(
        '/group.html',
      );
    } finally {
      await context.close();
    }
  });

  it('/group.html on a phone (360 × 640): the two users stack, each as wide as the page; the nav goes to /spa.html', async () => {
    const { page, context } = await openPage(browser, `${service.base}/group.html`, {
      width: 360,
      height: 640,
    });
    try {
      const boxes = await page
        .locator('.panes iframe')
        .evaluateAll((frames) => frames.map((f) => f.getBoundingClientRect().toJSON() as DOMRect));
      expect(boxes).toHaveLength(2);
      const [alice, bob] = boxes as [DOMRect, DOMRect];
      expect(alice.width).toBeGreaterThanOrEqual(300);
      expect(bob.width).toBe(alice.width);
      expect(bob.top).toBeGreaterThanOrEqual(alice.bottom);
      // Nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      for (const path of ['/group.html', '/console.html']) {
        await page.goto(`${service.base}${path}`);
        const nav = page.getByRole('navigation', { name: 'Páginas de la demo' });
        expect(await nav.getByRole('link', { name: 'SPA (ESM)' }).getAttribute('href'), path).toBe(
          '/spa.html',
        );
      }
    } finally {
      await context.close();
    }
  });

  it('/console.html: every operation with its defaults shows a result or a readable error, and the console keeps its conversation', async () => {
    const user = uniqueUser('newcomer');
    const { page, problems, context } = await openPage(browser, `${service.base}/console.html?user=${user}`, {
      width: 1400,
      height: 1000,
    });
    try {
      await until('the console widget to connect', async () =>
        (await page.locator('#state-connection').textContent()) === 'connected' ? true : undefined,
      );
      const botRoom = await until('the bot room', async () => {
        const r = (await page.locator('#state-room').textContent())?.trim();
        return r && r !== '—' ? r : undefined;
      });
      // Run in the page's order, as someone trying the console top to bottom would, up to the room
      // operations (openRoomWithUser and later move the console to another room).
      const ops = await page
        .locator('form[data-op]')
        .evaluateAll((forms) => forms.map((f) => (f as HTMLElement).dataset['op']!));
      const errors: Record<string, string> = {};
      for (const op of ops.slice(0, ops.indexOf('openRoomWithUser'))) {
        const outcome = await runConsoleForm(page, op, {});
        if (outcome.state === 'error') errors[op] = String(outcome.value?.message);
      }
      // Only the form that needs an id no field can guess fails, and it says why.
      expect(errors).toEqual({ setCurrentRoom: 'setCurrentRoom: roomId must be a non-empty string' });
      expect(
        await page.locator('form[data-op="setCurrentRoom"] input[name="roomId"]').getAttribute('placeholder'),
      ).toMatch(/sala/);
      // leaveRoom's default did not take the console's own user out of its bot room.
      const room = await runConsoleForm(page, 'getRoom', {});
      expect(room.state, room.text).toBe('ok');
      expect(room.value.id).toBe(botRoom);
      for (const op of ['http:updateCampaign', 'http:cancelCampaign']) {
        const outcome = await runConsoleForm(page, op, {});
        expect(outcome.state).toBe('error');
        expect(outcome.value.message).toMatch(/campaignId/);
        expect(
          await page.locator(`form[data-op="${op}"] input[name="campaignId"]`).getAttribute('placeholder'),
        ).toMatch(/tabla/);
      }
      expect(await cspViolations(page)).toEqual([]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
