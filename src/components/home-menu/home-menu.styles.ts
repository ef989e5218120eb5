import { css } from 'lit';

/** A choice that failed (home menu, room contacts): the chat's error colours, which read in both schemes. */
export const failure = css`
  .failure {
    margin: 8px 16px 0;
    padding: 6px 12px;
    border-radius: 8px;
    background: #fdecea;
    color: #8a1c12;
    font-size: 13px;
  }
`;

export const styles = css`
  ${failure}
  .brand {
    display: inline-flex;
    padding: 8px;
  }
`;
