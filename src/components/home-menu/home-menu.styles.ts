import { css } from 'lit';

export const styles = css`
  .brand {
    display: inline-flex;
    padding: 8px;
  }
`;
