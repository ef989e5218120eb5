import { css } from 'lit';

export const styles = css`
  charla-message-list {
    flex: 1 1 auto;
  }
  .lost {
    margin: 0;
    padding: 6px 12px;
    border-bottom: 1px solid var(--charla-color-border, #d0d5db);
    background: var(--charla-color-surface-alt, #f6f7f9);
    color: var(--charla-color-text, #1f2328);
    font-size: 13px;
  }
  /* Empty, it takes no room but stays in the accessibility tree: its words are read when they come. */
  .lost:empty {
    padding: 0;
    border: 0;
  }
  .error {
    display: flex;
    align-items: center;
    gap: 8px;
    padding: 6px 8px 6px 12px;
    background: var(--charla-color-error-surface, #fdecea);
    color: var(--charla-color-error-text, #8a1c12);
    font-size: 13px;
  }
  .error p {
    flex: 1;
    min-width: 0;
    margin: 0;
    overflow-wrap: anywhere;
  }
  .error .icon-button {
    width: 28px;
    height: 28px;
  }
  /* The focus colour on the alert's pink is 1.8:1 in the dark scheme. */
  .error :focus-visible {
    outline-color: currentColor;
  }
`;
