/**
 * Styles shared by every shadow root: resets that keep the host page's
 * inherited styles out, focus rings, icon buttons, avatars. Lit adopts these
 * as constructable stylesheets, so they work under `style-src 'self'`.
 */
import { css } from 'lit';

/** The widget's font: the theme's (--charla-font-family), else the system's. */
const fontFamily = css`var(
  --charla-font-family,
  system-ui,
  -apple-system,
  'Segoe UI',
  Roboto,
  'Helvetica Neue',
  Arial,
  sans-serif
)`;

export const base = css`
  :host {
    box-sizing: border-box;
    font-family: ${fontFamily};
    font-size: var(--charla-font-size, 14px);
    line-height: 1.45;
    color: var(--charla-color-text, #1f2328);
    text-align: start;
    letter-spacing: normal;
    word-spacing: normal;
    text-transform: none;
    font-style: normal;
    font-weight: 400;
  }
  :host([hidden]) {
    display: none !important;
  }
  /* Not inherit: a page's * { box-sizing: inherit } (or content-box) reaches the host itself. */
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  [hidden] {
    display: none !important;
  }
  button,
  input,
  textarea,
  select {
    font: inherit;
    color: inherit;
    letter-spacing: inherit;
  }
  button {
    cursor: pointer;
    margin: 0;
  }
  button:disabled {
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 3px solid var(--charla-color-focus, #1d4ed8);
    outline-offset: 2px;
  }
  a {
    color: var(--charla-color-link, #1d4ed8);
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  .icon {
    display: block;
    flex: none;
  }
  /* flex: none: a long room or company name beside it must not squeeze it under 24 px (2.5.8). */
  .icon-button {
    flex: none;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 40px;
    height: 40px;
    padding: 0;
    border: 0;
    border-radius: 50%;
    background: transparent;
    color: inherit;
  }
  .icon-button:hover:not(:disabled) {
    background: var(--charla-color-hover, rgba(0, 0, 0, 0.06));
  }
  .icon-button:disabled {
    opacity: 0.45;
  }
  .pill-button {
    padding: 6.5px 14.5px;
    border: 1.5px solid var(--charla-color-primary-edge, #2563eb);
    border-radius: 999px;
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
    font-weight: 600;
  }
  .pill-button:disabled {
    opacity: 0.6;
  }
  .avatar {
    display: inline-flex;
    flex: none;
    align-items: center;
    justify-content: center;
    overflow: hidden;
    border-radius: 50%;
    background: var(--charla-color-avatar, #dbe4f0);
    color: var(--charla-color-avatar-text, #1f2937);
    font-weight: 600;
  }
  .avatar--md {
    width: 40px;
    height: 40px;
    font-size: 15px;
  }
  .avatar--sm {
    width: 32px;
    height: 32px;
    font-size: 12px;
  }
  .avatar img {
    width: 100%;
    height: 100%;
    object-fit: cover;
  }
  .spinner {
    display: inline-block;
    width: 18px;
    height: 18px;
    border: 2px solid currentColor;
    border-inline-end-color: transparent;
    border-radius: 50%;
    animation: charla-spin 0.8s linear infinite;
  }
  @keyframes charla-spin {
    to {
      transform: rotate(360deg);
    }
  }
  @media (prefers-reduced-motion: reduce) {
    *,
    *::before,
    *::after {
      animation-duration: 0.01ms !important;
      animation-iteration-count: 1 !important;
      transition-duration: 0.01ms !important;
      scroll-behavior: auto !important;
    }
  }
`;

/**
 * Theme tokens, declared once on `<charla-widget>` and inherited by every part.
 * `all: initial` first: what the page sets on an ancestor (body { white-space: pre;
 * word-break: break-all; text-indent; text-shadow; cursor: none }, :root { color-scheme: dark },
 * dir="rtl") would otherwise be inherited through the shadow boundary; only hiding
 * (visibility) still reaches the widget. The widget's languages read left to right.
 */
export const tokens = css`
  /*
   * The text properties every part inherits, important on <charla-widget> (the one host the page
   * can reach): a page rule on the element itself (* { all: unset } makes it inherit white-space:
   * pre, word-break, text-indent, cursor, :root's color-scheme from <html>) outranks the normal
   * :host declarations here, but not the important ones (the shadow tree's important declarations
   * win over the page's). The theme still reaches them through the --charla-* properties; the
   * hosts inside keep base's normal ones, so a part may still set them on a child element.
   */
  :host {
    all: initial;
    visibility: inherit;
    direction: ltr !important;
    color-scheme: normal !important;
    font-family: ${fontFamily} !important;
    font-size: var(--charla-font-size, 14px) !important;
    line-height: 1.45 !important;
    color: var(--charla-color-text, #1f2328) !important;
    text-align: start !important;
    text-indent: 0 !important;
    text-shadow: none !important;
    letter-spacing: normal !important;
    word-spacing: normal !important;
    text-transform: none !important;
    white-space: normal !important;
    word-break: normal !important;
    overflow-wrap: normal !important;
    hyphens: manual !important;
    font-style: normal !important;
    font-weight: 400 !important;
    font-variant: normal !important;
    cursor: auto !important;
    -webkit-text-fill-color: currentcolor !important;
    --charla-color-primary: #2563eb;
    --charla-color-on-primary: #ffffff;
    /* The brand colour as the edge of a control, 3:1 against the surface (theme.ts's edgeOn). */
    --charla-color-primary-edge: var(--_edge-light, var(--charla-color-primary));
    /* Its words on the surface (options, chips), 4.5:1; the link colour without a brand colour. */
    --charla-color-primary-text: var(--_text-light, var(--charla-color-link));
    --charla-color-surface: #ffffff;
    --charla-color-surface-alt: #f6f7f9;
    --charla-color-text: #1f2328;
    --charla-color-muted: #59606a;
    --charla-color-border: #d0d5db;
    --charla-color-bubble: #eef0f3;
    --charla-color-bubble-text: #1f2328;
    --charla-color-danger: #b42318;
    /* A notice that something failed (chat, composer, lists): 7:1 text on its own surface. */
    --charla-color-error-surface: #fdecea;
    --charla-color-error-text: #8a1c12;
    --charla-color-focus: #1d4ed8;
    --charla-color-link: #1d4ed8;
    --charla-radius: 16px;
    --charla-bubble-radius: 14px;
    --charla-shadow: 0 12px 40px rgba(15, 23, 42, 0.18), 0 2px 8px rgba(15, 23, 42, 0.08);
    --charla-z-index: 2147483000;
  }
  @media (prefers-color-scheme: dark) {
    :host([color-scheme='auto']) {
      color-scheme: dark !important;
      --charla-color-surface: #16181c;
      --charla-color-primary-edge: var(--_edge-dark, var(--charla-color-primary));
      --charla-color-primary-text: var(--_text-dark, var(--charla-color-link));
      --charla-color-surface-alt: #1f2227;
      --charla-color-text: #eceef1;
      --charla-color-muted: #a7aeb8;
      --charla-color-border: #3a3f47;
      --charla-color-bubble: #2a2e35;
      --charla-color-bubble-text: #eceef1;
      --charla-color-danger: #ff8a80;
      --charla-color-error-surface: #3b1f1f;
      --charla-color-error-text: #ffb4ab;
      --charla-color-focus: #93b4ff;
      --charla-color-link: #93b4ff;
      --charla-color-hover: rgba(255, 255, 255, 0.08);
      --charla-color-avatar: #3a4556;
      --charla-color-avatar-text: #eceef1;
    }
  }
`;
