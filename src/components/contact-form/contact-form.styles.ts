import { css } from 'lit';

export const styles = css`
  :host {
    display: block;
    margin-top: 8px;
  }
  form {
    display: grid;
    gap: 8px;
    padding: 12px;
    border: 1px solid var(--charla-color-border, #d0d5db);
    border-radius: 12px;
    background: var(--charla-color-surface, #fff);
  }
  .title {
    margin: 0;
    font-weight: 600;
  }
  label {
    display: grid;
    gap: 2px;
    font-size: 13px;
    color: var(--charla-color-muted, #59606a);
  }
  input {
    font-size: 16px;
    padding: 8px 10px;
    border: 1px solid var(--charla-color-muted, #59606a);
    border-radius: 8px;
    background: var(--charla-color-surface, #fff);
    color: var(--charla-color-text, #1f2328);
  }
  .error {
    margin: 0;
    color: var(--charla-color-danger, #b42318);
    font-size: 13px;
  }
  /* A field's error sits under it, closer to it than to the next field. */
  label + .error {
    margin-top: -4px;
  }
  input[aria-invalid='true'] {
    border-color: var(--charla-color-danger, #b42318);
  }
  .done {
    margin: 0;
    color: var(--charla-color-muted, #59606a);
  }
  button {
    justify-self: start;
  }
`;
