import { css } from 'lit';

export const styles = css`
  /*
   * Never taller than most of the chat: on a short screen (320 x 256) notices, uploads and the
   * counter scroll in their own area above the bar, which always shows whole.
   */
  :host {
    display: flex;
    flex-direction: column;
    flex: 0 1 auto;
    min-height: 0;
    max-height: 75%;
    border-top: 1px solid var(--charla-color-border, #d0d5db);
    background: var(--charla-color-surface, #fff);
  }
  .notes {
    flex: 0 1 auto;
    min-height: 0;
    overflow-y: auto;
  }
  .composer {
    flex: none;
    display: flex;
    align-items: flex-end;
    gap: 4px;
    padding: 8px;
  }
  /* As if the buttons were the bar's own, unless the narrow bar opens them on a row of their own. */
  .actions {
    display: contents;
  }
  .open {
    flex-wrap: wrap;
  }
  .open .actions {
    display: flex;
    flex: 1 0 100%;
    order: -1;
    gap: 4px;
  }
  /* The close icon turned a quarter: a plus, which turns back into a cross while the buttons show. */
  .more-button .icon {
    transform: rotate(45deg);
  }
  .open .more-button .icon {
    transform: none;
  }
  /* Narrow: the field gets what a few pixels more can give (184 px at 320 px, still 36 px targets). */
  .narrow {
    padding-inline: 6px;
  }
  .narrow .more-button,
  .narrow [part='mic-button'] {
    width: 36px;
    height: 36px;
    margin-block: 2px;
  }
  .field {
    flex: 1 1 auto;
    min-width: 0;
    display: flex;
  }
  textarea {
    flex: 1 1 auto;
    min-width: 0;
    min-height: 40px;
    max-height: calc(5 * 1.4em + 18px);
    /*
     * Five lines, or a quarter of the viewport's height when that is less: a phone on its side with
     * its keyboard up (200 px, the panel full screen) still shows the header, the list and the whole
     * field. The small viewport (svh): never more than what is left with the browser's bars shown.
     */
    max-height: min(calc(5 * 1.4em + 18px), 25svh);
    padding: 8px 14px;
    resize: none;
    overflow-y: auto;
    /* The field's edge at 3:1 at least (the border colour is 1.5:1): the muted text colour. */
    border: 1px solid var(--charla-color-muted, #59606a);
    border-radius: 20px;
    background: var(--charla-color-surface-alt, #f6f7f9);
    color: var(--charla-color-text, #1f2328);
    /* 16 px keeps mobile browsers from zooming into the field. */
    font-size: 16px;
    line-height: 1.4;
    field-sizing: content;
  }
  textarea::placeholder {
    color: var(--charla-color-muted, #59606a);
    opacity: 1;
    /* One line: a wrapped placeholder would make the empty field two lines tall. */
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  textarea:disabled {
    opacity: 0.6;
  }
  /* Before .send: of two rules as specific, the later wins, and the send button's colours are its own. */
  .icon-button {
    color: var(--charla-color-muted, #59606a);
  }
  .send {
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
    border: 1.5px solid var(--charla-color-primary-edge, #2563eb);
  }
  /*
   * Faded, not transparent: a light brand colour at 45 % opacity was no shape at all; the edge stays.
   * The icon fades into that fill, under 3:1 on it (an enabled control's icon never is) in either
   * scheme and with a light or a dark brand colour: white on navy in the dark scheme read as enabled.
   */
  .send:disabled {
    --_fill: color-mix(in srgb, var(--charla-color-primary, #2563eb) 45%, var(--charla-color-surface, #fff));
    opacity: 1;
    background: var(--_fill);
    color: color-mix(in srgb, var(--charla-color-on-primary, #fff) 35%, var(--_fill));
  }
  .send:hover:not(:disabled) {
    background: var(--charla-color-primary, #2563eb);
    filter: brightness(0.92);
  }
  .recording {
    color: var(--charla-color-danger, #b42318);
  }
  .notice {
    display: flex;
    align-items: center;
    gap: 8px;
    margin: 8px 8px 0;
    padding: 6px 10px;
    border-radius: 8px;
    background: var(--charla-color-error-surface, #fdecea);
    color: var(--charla-color-error-text, #8a1c12);
    font-size: 13px;
  }
  .notice p {
    flex: 1;
    /* A file's name may be one 240-character word: it wraps, and the buttons stay in the panel. */
    min-width: 0;
    overflow-wrap: anywhere;
    margin: 0;
  }
  .retry {
    min-height: 28px;
    padding: 0 10px;
    border: 1px solid currentColor;
    border-radius: 999px;
    background: transparent;
  }
  .notice .icon-button {
    width: 28px;
    height: 28px;
    color: inherit;
  }
  .notice :focus-visible {
    outline-color: currentColor;
  }
  .uploads {
    display: grid;
    gap: 4px;
    /* No margin of its own: it stays empty between uploads (a live region is there before its text). */
    margin: 0 8px;
    font-size: 12px;
    color: var(--charla-color-muted, #59606a);
  }
  .upload {
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto;
    overflow-wrap: anywhere;
    align-items: center;
    gap: 2px 4px;
    margin: 0;
  }
  .upload > span {
    grid-column: 1 / -1;
  }
  .upload .icon-button {
    width: 32px;
    height: 32px;
  }
  .upload:first-child {
    margin-top: 8px;
  }
  progress {
    width: 100%;
    height: 6px;
    accent-color: var(--charla-color-primary, #2563eb);
  }
  input[type='file'] {
    display: none;
  }
`;
