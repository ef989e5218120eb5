import { css, unsafeCSS } from 'lit';
import { FULL_SCREEN } from '../../controllers/full-screen.ts';

export const styles = css`
  /*
   * Out of the page's flow whatever its CSS (launcher and panel are in the top layer): a grid or flex
   * body took the element for an item (a row and a gap more), body > * rules gave it margins and
   * borders. Important in a shadow root's :host beats the page's rules, important ones too. Absolute,
   * not fixed: no stacking context (without popovers the launcher's z-index is the page's). Its
   * display stays the page's: none hides it.
   */
  :host {
    display: block;
    position: absolute !important;
    top: 0 !important;
    left: 0 !important;
    width: 0 !important;
    height: 0 !important;
    min-width: 0 !important;
    min-height: 0 !important;
    margin: 0 !important;
    padding: 0 !important;
    border: 0 !important;
    outline: 0 !important;
    box-shadow: none !important;
    background: none !important;
    --_edge: 24px;
    --_launcher: 56px;
    --_gap: 12px;
    /* The page's safe area (a notch, a home indicator: only with viewport-fit=cover), else 0. */
    --_st: env(safe-area-inset-top, 0px);
    --_sr: env(safe-area-inset-right, 0px);
    --_sb: env(safe-area-inset-bottom, 0px);
    --_sl: env(safe-area-inset-left, 0px);
  }
  /*
   * Both are manual popovers in the top layer (inset and margin undo the browser's popover centring;
   * overflow its auto, which clipped the badge to the circle and put a scrollbar in it).
   */
  .launcher {
    position: fixed;
    inset: auto;
    margin: 0;
    overflow: visible;
    z-index: var(--charla-z-index, 2147483000);
    bottom: calc(var(--_edge) + var(--_sb));
    right: calc(var(--_edge) + var(--_shift, 0px) + var(--_sr));
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: var(--_launcher);
    height: var(--_launcher);
    padding: 0;
    /* Transparent: it draws the circle when forced colours drop the background. */
    border: 2px solid transparent;
    border-radius: 50%;
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
    box-shadow: 0 6px 20px rgba(15, 23, 42, 0.25);
    transition:
      transform 0.15s ease,
      box-shadow 0.15s ease;
  }
  .launcher .icon {
    width: 28px;
    height: 28px;
  }
  .launcher:hover:not([aria-disabled]) {
    transform: scale(1.05);
  }
  /* aria-disabled, not disabled: it keeps focus (close(true) from inside the widget returns it here)
     and stays in the Tab order, saying "Chat no disponible". */
  .launcher[aria-disabled] {
    background: #6b7280;
    color: #fff;
    box-shadow: none;
    opacity: 0.8;
  }
  /* Drawn over the host page, whose colour is unknown: a white ring inside a dark one, so one of
     the two stands at least 3:1 against any backdrop (white on dark pages, the dark on light ones). */
  .launcher:focus-visible {
    outline: 3px solid #0f172a;
    outline-offset: 3px;
    box-shadow:
      0 0 0 3px #fff,
      0 6px 20px rgba(15, 23, 42, 0.25);
  }
  .badge {
    position: absolute;
    top: -4px;
    right: -4px;
    min-width: 22px;
    height: 22px;
    padding: 0 6px;
    border: 2px solid #fff;
    border-radius: 999px;
    background: #c4320a;
    color: #fff;
    font-size: 12px;
    font-weight: 700;
    line-height: 18px;
    text-align: center;
  }
  .panel {
    position: fixed;
    inset: auto;
    margin: 0;
    padding: 0;
    border: 0;
    /*
     * Transparent: forced colours drop the shadow that marks the panel's edge, and paint this
     * outline instead. An outline, not a border: the panel's size and content stay where they were.
     */
    outline: 1px solid transparent;
    /* Above every launcher, another widget's in the same corner too (they share the page's stacking context). */
    z-index: calc(var(--charla-z-index, 2147483000) + 1);
    bottom: calc(var(--_edge) + var(--_launcher) + var(--_gap) + var(--_sb));
    right: calc(var(--_edge) + var(--_shift, 0px) + var(--_sr));
    display: flex;
    flex-direction: column;
    width: 380px;
    /* Shares of the viewport (its containing block), not vw/vh: under html { zoom } those grow with the zoom. */
    max-width: calc(100% - 2 * var(--_edge) - var(--_shift, 0px));
    height: 640px;
    max-height: calc(100% - 100px);
    overflow: hidden;
    border-radius: var(--charla-radius, 16px);
    background: var(--charla-color-surface, #fff);
    color: var(--charla-color-text, #1f2328);
    box-shadow: var(--charla-shadow, 0 12px 40px rgba(15, 23, 42, 0.18));
    animation: charla-pop 0.18s ease-out;
  }
  .panel[hidden] {
    display: none;
  }
  .panel > * {
    flex: 1 1 auto;
    min-height: 0;
  }
  /*
   * No scale: the message list's virtualizer measures rows with getBoundingClientRect, which a
   * scaled ancestor shrinks. Rows of the first render (during this animation) were stored 2 % short,
   * so the list stopped short of its newest row by 2 % of its height; nothing measures them again.
   */
  @keyframes charla-pop {
    from {
      opacity: 0;
      transform: translateY(12px);
    }
    to {
      opacity: 1;
      transform: none;
    }
  }
  :host([position='bottom-left']) .launcher,
  :host([position='top-left']) .launcher,
  :host([position='bottom-left']) .panel,
  :host([position='top-left']) .panel {
    right: auto;
    left: calc(var(--_edge) + var(--_shift, 0px) + var(--_sl));
  }
  :host([position='top-right']) .launcher,
  :host([position='top-left']) .launcher {
    bottom: auto;
    top: calc(var(--_edge) + var(--_st));
  }
  :host([position='top-right']) .panel,
  :host([position='top-left']) .panel {
    bottom: auto;
    top: calc(var(--_edge) + var(--_launcher) + var(--_gap) + var(--_st));
  }
  .unavailable {
    position: relative;
    display: flex;
    flex: 1;
    flex-direction: column;
    align-items: center;
    justify-content: center;
    gap: 12px;
    padding: 56px 24px 24px;
    text-align: center;
  }
  /* Not a blank panel: the chat's mark, faded, above what went wrong. */
  .unavailable__icon {
    display: inline-flex;
    padding: 14px;
    border-radius: 50%;
    background: var(--charla-color-surface-alt, #f6f7f9);
    color: var(--charla-color-muted, #59606a);
  }
  .unavailable__icon .icon {
    width: 32px;
    height: 32px;
  }
  .unavailable p {
    max-width: 28ch;
    margin: 0;
    color: var(--charla-color-text, #1f2328);
    font-size: 15px;
  }
  .unavailable__close {
    position: absolute;
    top: 8px;
    inset-inline-end: 8px;
  }
  /* Forced colours paint a native :disabled button GrayText, not an aria-disabled one. */
  @media (forced-colors: active) {
    .launcher[aria-disabled] {
      color: GrayText;
      border-color: GrayText;
    }
  }
  /* The controller's query (a constant, not input): CSS and the modal panel's Tab cycle agree. */
  @media ${unsafeCSS(FULL_SCREEN)} {
    .panel,
    :host([position]) .panel {
      /* What shows of the page (above an on-screen keyboard): FullScreenController sets them. */
      inset: var(--_vvt, 0px) 0 auto;
      width: 100%;
      max-width: none;
      height: var(--_vvh, 100%);
      max-height: none;
      border-radius: 0;
      /* Nothing under the notch or the home indicator (the close button, the composer). */
      padding: var(--_st) var(--_sr) var(--_sb) var(--_sl);
    }
    .launcher--open {
      display: none;
    }
  }
  /* A printed page shows the page, not the chat over it. */
  @media print {
    .launcher,
    .panel {
      display: none !important;
    }
  }
`;
