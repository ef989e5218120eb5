import { css } from 'lit';

export const styles = css`
  .icon-button {
    flex: none;
  }
`;
