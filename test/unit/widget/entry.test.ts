/**
 * The ESM entry: importing it registers the elements, and createWidget's
 * element is the real <charla-widget> holding the instance's context.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createWidget, CharlaError, CharlaOpenEvent, version, widgets } from '../../../src/index.ts';

afterEach(() => {
  for (const w of widgets()) w.destroy();
});

describe('charla (ESM entry)', () => {
  it('registers <charla-widget> and hands it the instance context', async () => {
    expect(customElements.get('charla-widget')).toBeDefined();
    const w = createWidget({ apiKey: 'key-entry-00000000', baseUrl: 'http://localhost:9', userId: 'u1' });
    const el = w.element as HTMLElement & { context?: unknown; updateComplete?: Promise<unknown> };
    expect(el).toBeInstanceOf(customElements.get('charla-widget') as CustomElementConstructor);
    expect(el.context).toBe(w.context);
    await el.updateComplete;
    expect(el.shadowRoot).not.toBeNull();
    // The entry's other exports are the package's own: its version, its events, its error class.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      version: string;
    };
    expect(version).toBe(pkg.version);
    expect(new CharlaOpenEvent({}).type).toBe('charla-open');
    await expect(w.getRoom('')).rejects.toBeInstanceOf(CharlaError);
  });

  it('the launcher the element renders opens the widget through the actions', async () => {
    const w = createWidget({ apiKey: 'key-entry-00000001', baseUrl: 'http://localhost:9', userId: 'u1' });
    const el = w.element as HTMLElement & { updateComplete?: Promise<unknown> };
    await el.updateComplete;
    const opened: unknown[] = [];
    w.on('open', (d) => opened.push(d));
    const launcher = el.shadowRoot?.querySelector('[part~="launcher"]') as HTMLButtonElement | null;
    expect(launcher).not.toBeNull();
    launcher?.click();
    expect(w.context.stores.$ui.get().open).toBe(true);
    expect(opened).toHaveLength(1);
  });
});
