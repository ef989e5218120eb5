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

/** One emoji: a flag, or a pictograph with its skin tone, presentation mark or joined ones (a family). */
const EMOJI = String.raw`(?:\p{Regional_Indicator}{2}|\p{Extended_Pictographic}[\p{Emoji_Modifier}\ufe0f\u20e3]*(?:\u200d\p{Extended_Pictographic}[\p{Emoji_Modifier}\ufe0f]*)*)`;
/**
 * A text of one to three emoji and nothing else: shown large, as messaging apps do. Made at its
 * first use: compiling its Unicode classes while the script loads delayed the launcher.
 */
let emojiOnly: RegExp | undefined;
const isEmojiOnly = (text: string): boolean =>
  // Any emoji has one of these (©, ®, the symbol blocks, an astral pictograph's surrogate): a
  // check without Unicode classes, so most texts never build the pattern.
  /[\u00a9\u00ae\u2000-\u3300\ud83c-\ud83e]/.test(text) &&
  (emojiOnly ??= new RegExp(`^\\s*(?:${EMOJI}\\s*){1,3}$`, 'u')).test(text);

export function renderText(message: TextMessage): TemplateResult {
  const text = message.text ?? '';
  return html`<p class="text ${isEmojiOnly(text) ? 'text--emoji' : ''}" dir="auto">${richText(text)}</p>`;
}
