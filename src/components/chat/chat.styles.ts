import { css } from 'lit';

export const styles = css`
  charla-message-list {
    flex: 1 1 auto;
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
    margin: 0;
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
