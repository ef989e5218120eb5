import { css } from 'lit';

/**
 * Rows render into the message list's shadow root (no shadow root per row: a
 * long scroll creates many rows), so these rules are part of the list's
 * stylesheet and name the element instead of `:host`.
 */
export const styles = css`
  charla-message {
    display: block;
    padding: 2px 12px;
    contain: content;
  }
  .row {
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    max-width: 100%;
  }
  charla-message[own] .row {
    align-items: flex-end;
  }
  charla-message[grouped] {
    padding-top: 0;
  }
  charla-message:not([grouped]) {
    padding-top: 8px;
  }
  .sender {
    /* A visitor chooses their name: one line at most, however long. */
    max-width: 100%;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
    margin: 0 4px 2px;
    font-size: 12px;
    font-weight: 600;
    color: var(--charla-color-muted, #59606a);
  }
  .bubble {
    max-width: 82%;
    padding: 8px 12px;
    border-radius: var(--charla-bubble-radius, 14px);
    background: var(--charla-color-bubble, #eef0f3);
    color: var(--charla-color-bubble-text, #1f2328);
    /* Invisible until forced colours drop the background: then it draws the bubble. */
    outline: 1px solid transparent;
    outline-offset: -1px;
    overflow-wrap: anywhere;
    /*
     * Stacked combining marks ("Zalgo" text) reach far outside their line: kept to the bubble, not
     * painted over the time. The margin leaves room for the focus ring of a control at the padding's
     * edge (3 px outline, 2 px offset, media bubbles' padding is 4 px).
     */
    overflow: clip;
    overflow-clip-margin: 2px;
  }
  charla-message[own] .bubble {
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
  }
  charla-message[own] .bubble a {
    color: inherit;
  }
  /* The focus colour on the brand colour of one's own bubble is 1.3:1: the bubble's text colour instead. */
  charla-message[own] .bubble :focus-visible {
    outline-color: currentColor;
  }
  .bubble--media {
    padding: 4px;
  }
  .text,
  .caption,
  .event,
  .unknown {
    margin: 0;
    white-space: pre-wrap;
  }
  /* One to three emoji alone (messages/text.ts). */
  .text--emoji {
    font-size: 2.25em;
    line-height: 1.2;
  }
  .caption {
    padding: 4px 8px 4px;
  }
  .unknown {
    font-style: italic;
  }
  .system {
    /* An event line of one long word, or of stacked combining marks, stays in its pill. */
    overflow-wrap: anywhere;
    overflow: clip;
    align-self: center;
    max-width: 90%;
    margin: 4px auto;
    padding: 4px 12px;
    border-radius: 999px;
    background: var(--charla-color-surface-alt, #f6f7f9);
    color: var(--charla-color-muted, #59606a);
    font-size: 12px;
    text-align: center;
  }
  .meta {
    display: flex;
    align-items: center;
    gap: 4px;
    /* Past the bubble's clip margin (2 px), with a pixel to spare: marks it lets through stay off the time. */
    margin: 4px 4px 0;
    font-size: 11px;
    color: var(--charla-color-muted, #59606a);
  }
  .meta .icon {
    width: 14px;
    height: 14px;
  }
  .status--DELIVERED_USER {
    color: var(--charla-color-link, #1d4ed8);
  }
  .status--FAILED {
    color: var(--charla-color-danger, #b42318);
  }
  .retry {
    padding: 4px 8px;
    border: 1px solid currentColor;
    border-radius: 999px;
    background: transparent;
    color: var(--charla-color-danger, #b42318);
    font-size: 12px;
  }
  .retry:hover {
    background: var(--charla-color-error-surface, #fdecea);
  }
  figure {
    margin: 0;
  }
  .image__open {
    display: block;
    padding: 0;
    border: 0;
    background: none;
    border-radius: 10px;
    overflow: hidden;
  }
  .image img {
    display: block;
    max-width: 100%;
    max-height: 240px;
    object-fit: cover;
  }
  /*
   * The viewer fills the viewport (a modal dialog, in the top layer): its close button in the top
   * right corner, above the picture's area and never over the picture, and a click anywhere around
   * the picture lands on the dialog itself, which media.ts takes as "close". The picture is as large
   * as that area allows, its shape kept, and at most twice its own size (zoom): a photo from a phone
   * is larger than the viewport anyway; a small picture (the demo's is 96 px, the size of its
   * thumbnail) is shown larger, but not blown up into a blur.
   */
  .lightbox {
    width: 100%;
    height: 100%;
    max-width: none;
    max-height: none;
    margin: 0;
    padding: 56px 16px 16px;
    border: 0;
    background: transparent;
  }
  .lightbox[open] {
    display: grid;
    grid-template: minmax(0, 1fr) / minmax(0, 1fr);
    place-items: center;
  }
  .lightbox::backdrop {
    background: rgba(0, 0, 0, 0.8);
  }
  .lightbox img {
    display: block;
    max-width: 100%;
    max-height: 100%;
    zoom: 2;
  }
  .lightbox__close {
    position: absolute;
    top: 8px;
    right: 8px;
    background: rgba(0, 0, 0, 0.6);
    color: #fff;
  }
  /* The focus colour (#1d4ed8) is 1.9:1 on a white page under the backdrop: white is 12:1 there. */
  .lightbox :focus-visible {
    outline-color: #fff;
  }
  .audio {
    display: block;
    width: 240px;
    max-width: 100%;
  }
  .video {
    display: block;
    width: 260px;
    max-width: 100%;
    border-radius: 10px;
    background: #000;
  }
  .media-unavailable {
    display: flex;
    gap: 6px;
    align-items: center;
    margin: 0;
    padding: 6px 8px;
  }
  .card {
    display: flex;
    gap: 10px;
    align-items: center;
    min-width: 200px;
  }
  /* A contact's icon beside its name, however many lines the card has. */
  .card--contact {
    align-items: flex-start;
  }
  .card__icon {
    display: inline-flex;
    padding: 8px;
    border-radius: 10px;
    background: var(--charla-color-surface, #fff);
    color: var(--charla-color-text, #1f2328);
  }
  .card__body {
    display: flex;
    flex-direction: column;
    min-width: 0;
    flex: 1;
  }
  .card__title {
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  /* Smaller, not fainter: the text colour is chosen for 4.5:1 on its bubble (the brand colour
     for the user's own), with nothing to spare for an opacity (0.9 gave 4.48:1 on the default). */
  .card__secondary {
    font-size: 12px;
  }
  .card__link {
    display: inline-block;
    min-height: 24px;
    line-height: 24px;
    font-size: 13px;
  }
  .card__kind {
    display: inline-block;
  }
  .card--contact + .card--contact {
    margin-top: 8px;
  }
  .options,
  .chips,
  .call,
  charla-contact-form {
    width: 82%;
    max-width: 320px;
    margin-top: 6px;
    /* Titles, descriptions and button texts of their maximum length may be one unbroken word. */
    overflow-wrap: anywhere;
  }
  .options {
    display: grid;
    gap: 6px;
  }
  .message-header {
    max-width: 82%;
    overflow-wrap: anywhere;
    margin: 0 4px 4px;
    font-size: 14px;
    font-weight: 600;
  }
  .options__label,
  .options__title {
    margin: 0;
    font-size: 12px;
    font-weight: 600;
    color: var(--charla-color-muted, #59606a);
  }
  .option {
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    width: 100%;
    padding: 8px 12px;
    border: 1.5px solid var(--charla-color-primary-edge, #2563eb);
    border-radius: 10px;
    background: var(--charla-color-surface, #fff);
    color: var(--charla-color-primary-text, #1d4ed8);
    text-align: start;
    text-decoration: none;
    font-weight: 600;
  }
  .option:not([aria-disabled]):hover {
    background: var(--charla-color-surface-alt, #f6f7f9);
  }
  /* Answered: the chosen option filled in the brand colour with a check mark, the others faded. */
  .option[aria-disabled] {
    cursor: default;
  }
  .option[aria-pressed='true'] {
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
  }
  .option[aria-pressed='true'] .option__description {
    color: inherit;
  }
  .option[aria-pressed='false'] {
    opacity: 0.6;
  }
  /* Each as wide as the option, aligned by its own direction: Arabic starts at the right. */
  .option > .option__title,
  .option > .option__description {
    align-self: stretch;
  }
  .option--call > .option__title {
    align-self: auto;
  }
  .option__title .icon {
    display: inline-block;
    width: 18px;
    height: 18px;
    margin-inline-end: 4px;
    vertical-align: -4px;
  }
  .option--call {
    flex-direction: row;
    gap: 8px;
    align-items: center;
    justify-content: center;
  }
  .option__description {
    font-size: 12px;
    font-weight: 400;
    color: var(--charla-color-muted, #59606a);
  }
  .chips {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
  }
  .chip {
    display: inline-flex;
    align-items: center;
    gap: 6px;
    padding: 6px 12px;
    border: 1.5px solid var(--charla-color-primary-edge, #2563eb);
    border-radius: 999px;
    background: var(--charla-color-surface, #fff);
    color: var(--charla-color-primary-text, #1d4ed8);
    font-size: 13px;
    font-weight: 600;
    text-decoration: none;
  }
  .chip img {
    width: 18px;
    height: 18px;
    border-radius: 50%;
  }
`;
