import { css } from 'lit';

export const styles = css`
  :host {
    position: relative;
    display: flex;
    flex-direction: column;
    min-height: 0;
    flex: 1 1 auto;
    background: var(--charla-color-surface, #fff);
  }
  .scroller {
    flex: 1 1 auto;
    height: 100%;
    /* Over the virtualizer's inline 150 px: on a short screen the list would cover the composer. */
    min-height: 0 !important;
    overflow-y: auto;
    overscroll-behavior: contain;
    /* The virtualizer holds the view itself (and its rows are positioned, not in flow). */
    overflow-anchor: none;
    padding-bottom: 8px;
  }
  .scroller:focus-visible {
    outline-offset: -3px;
  }
  .day {
    display: block;
    width: 100%;
    padding: 12px 0 4px;
    text-align: center;
    font-size: 12px;
    font-weight: 600;
    color: var(--charla-color-muted, #59606a);
  }
  .day span {
    padding: 2px 10px;
    border-radius: 999px;
    background: var(--charla-color-surface-alt, #f6f7f9);
  }
  charla-message {
    width: 100%;
  }
  .older {
    position: absolute;
    top: 8px;
    left: 50%;
    transform: translateX(-50%);
    display: flex;
    gap: 8px;
    align-items: center;
    padding: 4px 12px;
    border-radius: 999px;
    background: var(--charla-color-surface, #fff);
    box-shadow: 0 1px 4px rgba(0, 0, 0, 0.15);
    font-size: 12px;
    z-index: 1;
  }
  /* A page that failed: said in the pill, with a retry (narrow panels wrap it inside). */
  .older--failed {
    background: var(--charla-color-error-surface, #fdecea);
    color: var(--charla-color-error-text, #8a1c12);
    width: max-content;
    max-width: calc(100% - 24px);
    flex-wrap: wrap;
    justify-content: center;
  }
  .older--failed button {
    min-height: 24px;
    padding: 2px 8px;
    border: 1px solid currentColor;
    border-radius: 999px;
    background: transparent;
    color: inherit;
    font: inherit;
    font-weight: 600;
  }
  .jump {
    position: absolute;
    bottom: 12px;
    left: 50%;
    transform: translateX(-50%);
    /* Its own width, not the half of the list left of center that 'left: 50%' leaves it (it wrapped). */
    width: max-content;
    max-width: calc(100% - 24px);
    display: inline-flex;
    gap: 6px;
    align-items: center;
    /* 6px 14px with the border: transparent, it draws the button when forced colours drop its background. */
    padding: 5px 13px;
    border: 1px solid transparent;
    border-radius: 999px;
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
    box-shadow: 0 2px 8px rgba(0, 0, 0, 0.2);
    font-size: 13px;
    font-weight: 600;
    z-index: 1;
  }
  .jump:hover {
    box-shadow: 0 4px 14px rgba(0, 0, 0, 0.34);
    text-decoration: underline;
  }
  .jump .icon {
    width: 16px;
    height: 16px;
  }
`;
