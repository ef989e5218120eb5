import { css } from 'lit';

export const styles = css`
  .icon-button {
    flex: none;
  }
  .brand {
    display: inline-flex;
    padding: 8px;
  }
`;
