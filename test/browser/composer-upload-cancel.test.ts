/**
 * Cancelling an upload in Chromium, by keyboard: where focus goes, the control's place and size,
 * axe. The component's context is the test fixture's (as in the other browser tests, which keep
 * the widget core and its socket.io out of the page); its sendFile waits, as an upload in progress
 * does, and cancelUpload ends it as the real actions do (test/unit/composer-upload-cancel.test.ts
 * runs the real ones, with the race of a file that had already arrived).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import type { CharlaComposer } from '../../src/components/composer/composer.ts';
import { clientError } from '../../src/transport/errors.ts';
import { axeViolations, deep, deepActive, makeContext, mountWidget, nextFrame, waitFor } from './helpers.ts';

afterEach(() => document.body.replaceChildren());

async function openWidget(width: number) {
  await page.viewport(width, 700);
  const f = makeContext({ ui: { open: true } });
  const cancelled: string[] = [];
  const pending = new Map<string, (error: unknown) => void>();
  // An upload in progress: in $uploads until cancelled, its promise rejecting as the real one's does.
  f.context.actions.sendFile = (file) =>
    new Promise((_, reject) => {
      const id = `u${pending.size + 1}`;
      pending.set(id, reject);
      f.stores.$uploads.set([...f.stores.$uploads.get(), { id, name: file.name ?? 'file', progress: 0.3 }]);
    });
  f.context.actions.cancelUpload = (id) => {
    cancelled.push(id);
    f.stores.$uploads.set(f.stores.$uploads.get().filter((u) => u.id !== id));
    pending.get(id)?.(clientError('DESTROYED', 'the upload was cancelled'));
  };
  const widget = await mountWidget(f);
  const composer = deep(widget, 'charla-chat', 'charla-composer') as CharlaComposer;
  const root = composer.shadowRoot!;
  const area = root.querySelector('textarea')!;
  const pick = async (name: string) => {
    composer.sendPickedFile(
      new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' }),
    );
    await waitFor(() => root.querySelector('[part=cancel-upload-button]'), 'the cancel button');
  };
  return { f, root, area, pick, cancelled };
}

/** Shift+Tab from the field until the cancel button has focus (it must be reachable by keyboard). */
async function tabBackToCancel(area: HTMLTextAreaElement): Promise<HTMLButtonElement> {
  area.focus();
  for (let i = 0; i < 6; i++) {
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    const active = deepActive();
    if (active?.matches('[part=cancel-upload-button]')) return active as HTMLButtonElement;
  }
  throw new Error(`the cancel button was not reached by Shift+Tab (focus on ${deepActive()?.outerHTML})`);
}

describe('<charla-composer> cancelling an upload by keyboard', () => {
  for (const width of [1280, 320]) {
    it(`cancels with Enter or Space, no failure shown, focus back in the field (${width} px)`, async () => {
      const { root, area, pick, cancelled } = await openWidget(width);
      await pick('foto.png');
      const cancel = await tabBackToCancel(area);
      expect(cancel.getAttribute('aria-label')).toBe('Cancelar el envío de foto.png');
      // Beside the progress bar, inside the panel, a target of 24 × 24 px at least (2.5.8).
      const bar = root.querySelector('progress')!.getBoundingClientRect();
      const box = cancel.getBoundingClientRect();
      expect(box.left).toBeGreaterThanOrEqual(bar.right);
      expect(box.top).toBeLessThan(bar.bottom);
      expect(box.bottom).toBeGreaterThan(bar.top);
      expect(box.right).toBeLessThanOrEqual(width);
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(24);
      expect(await axeViolations()).toEqual([]);

      await userEvent.keyboard('{Enter}');
      await nextFrame();
      expect(cancelled).toEqual(['u1']);
      expect(root.querySelector('progress')).toBeNull();
      expect(deepActive()).toBe(area);
      expect(root.querySelector('[role=alert]')).toBeNull();
      expect(root.querySelector('[role=status]')!.textContent!.trim()).toBe('Envío de «foto.png» cancelado.');

      // Usable again: a second upload, cancelled with Space this time.
      await pick('otra.png');
      expect(root.querySelector('[role=status]')!.textContent!.trim()).toBe('Subiendo otra.png');
      await tabBackToCancel(area);
      await userEvent.keyboard(' ');
      await nextFrame();
      expect(cancelled).toEqual(['u1', 'u2']);
      expect(deepActive()).toBe(area);
      expect(root.querySelector('[role=alert]')).toBeNull();
      await userEvent.keyboard('Hola');
      expect(area.value).toBe('Hola');
    });
  }
});
