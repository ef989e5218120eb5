/**
 * A page that enforces Trusted Types with its own allow-list (CSP
 * `require-trusted-types-for 'script'; trusted-types myapp`), in real
 * Chromium: the loader's failure is loud (console, `ready`, 'error'
 * listeners) and names the policies to allow, and those names are the ones
 * the code really uses (the loader's `charla-loader`, Lit's `lit-html`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CharlaError } from '../../src/transport/errors.ts';

const frames: HTMLIFrameElement[] = [];
afterEach(() => {
  for (const f of frames.splice(0)) f.remove();
});

interface FrameResult {
  done?: boolean;
  [key: string]: unknown;
}

/** A same-origin page with this CSP (a meta tag) running `script` as a module; resolves with its `window.result` once `result.done`. */
async function page(csp: string, script: string): Promise<{ win: Window; result: FrameResult }> {
  const frame = document.createElement('iframe');
  frame.srcdoc =
    `<!doctype html><meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<body><script type="module">window.result = {};\n${script}\n</script></body>`;
  document.body.append(frame);
  frames.push(frame);
  const start = performance.now();
  for (;;) {
    const win = frame.contentWindow as (Window & { result?: FrameResult }) | null;
    if (win?.result?.done) return { win, result: win.result };
    if (performance.now() - start > 15_000)
      throw new Error(`the page did not finish: ${JSON.stringify(win?.result)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Trusted Types allow-lists', () => {
  it("without Charla's policies: ready rejects with a CharlaError naming them, error listeners and the console hear it, the launcher is not left busy", async () => {
    const { win, result } = await page(
      "require-trusted-types-for 'script'; trusted-types myapp",
      `
      import { boot, scriptLoader } from '/src/widget/boot.ts';
      const logged = [];
      console.error = (e) => logged.push(String(e?.message ?? e));
      const heard = [];
      const charla = boot(null, scriptLoader(parent.location.origin + '/charla.iife.js'), 'test');
      const handle = charla.createWidget({ apiKey: 'KEY-tt-000000000000', baseUrl: 'https://charla.test' });
      handle.on('error', (d) => heard.push(d.operation + ':' + d.error.key));
      const button = document.querySelector('charla-loader').shadowRoot.querySelector('button');
      button.click();
      const error = await handle.ready.then(() => null, (e) => e);
      Object.assign(window.result, {
        name: error?.name, key: error?.key, code: error?.code, message: error?.message,
        heard, logged, busy: button.getAttribute('aria-busy'), scripts: document.scripts.length, done: true,
      });
      `,
    );
    expect(result).toMatchObject({ name: 'CharlaError', key: 'LOAD_FAILED', code: 'E0007' });
    expect(result['message']).toMatch(/charla-loader lit-html/);
    // Each try (idle time, the click) says so.
    const heard = result['heard'] as string[];
    expect(heard.length).toBeGreaterThan(0);
    expect(new Set(heard)).toEqual(new Set(['load:LOAD_FAILED']));
    expect(new Set(result['logged'] as string[])).toEqual(new Set([result['message']]));
    expect(result['busy']).toBeNull();
    // Nothing was injected: the only script is the page's own.
    expect(result['scripts']).toBe(1);
    expect((win as unknown as { Charla: { widgets: unknown[] } }).Charla.widgets).toHaveLength(1);
  });

  it("Lit's policy is named lit-html: refused without it, working with it", async () => {
    const lit = (csp: string) =>
      page(
        csp,
        `
        try {
          const { html, render } = await import('/node_modules/lit-html/lit-html.js');
          render(html\`<b>\${'rendered'}</b>\`, document.body);
          window.result.text = document.querySelector('b')?.textContent;
        } catch (e) {
          window.result.error = String(e?.message ?? e);
        }
        window.result.done = true;
        `,
      );
    const refused = await lit("require-trusted-types-for 'script'; trusted-types charla-loader");
    expect(refused.result['error']).toMatch(/lit-html/);
    const allowed = await lit("require-trusted-types-for 'script'; trusted-types charla-loader lit-html");
    expect(allowed.result).toMatchObject({ text: 'rendered' });
  });

  it('with charla-loader allowed, the loader gets past its policy (what is left is the network)', async () => {
    const { result } = await page(
      "require-trusted-types-for 'script'; trusted-types charla-loader lit-html",
      `
      import { scriptLoader } from '/src/widget/boot.ts';
      const error = await scriptLoader(parent.location.origin + '/no-such-bundle.js')().then(() => null, (e) => e);
      Object.assign(window.result, { key: error?.key, message: error?.message, injected: document.scripts.length, done: true });
      `,
    );
    expect(result).toMatchObject({ key: 'LOAD_FAILED', injected: 2 });
    expect(result['message']).toMatch(/no-such-bundle\.js/);
    expect(result['message']).not.toMatch(/Trusted Types/);
  });
});

export type { CharlaError };
