/** TEXT: plain text with http(s) addresses made into links; everything else stays text. */
import { html, type TemplateResult } from 'lit';
import type { TextMessage } from '../../../types/index.ts';
import { linkify } from '../shared/safe-url.ts';

/**
 * Text runs and <a> elements built by Lit bindings (never parsed as HTML). Each link is a
 * left-to-right isolate (`dir="ltr"`): a direction control before it in the text cannot reverse
 * what it shows (`\u202E https://evil.example/moc.knab//:sptth` would read as a bank's address).
 */
export function richText(text: string): TemplateResult {
  return html`${linkify(text).map((s) =>
    s.href
      ? html`<a href=${s.href} dir="ltr" target="_blank" rel="noopener noreferrer nofollow">${s.text}</a>`
      : s.text,
  )}`;
}

export function renderText(message: TextMessage): TemplateResult {
  return html`<p class="text" dir="auto">${richText(message.text ?? '')}</p>`;
}
