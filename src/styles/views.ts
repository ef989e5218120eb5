/** Styles shared by the panel's views: header bar, lists of rooms and contacts, loaders. */
import { css } from 'lit';

export const views = css`
  :host {
    display: flex;
    flex-direction: column;
    min-height: 0;
    height: 100%;
    background: var(--charla-color-surface, #fff);
  }
  .header {
    display: flex;
    align-items: center;
    gap: 8px;
    min-height: 60px;
    padding: 10px 8px 10px 12px;
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
  }
  .header__text {
    display: flex;
    flex-direction: column;
    flex: 1 1 auto;
    min-width: 0;
  }
  /* The room's name takes two lines before it ends in "…" (WCAG 1.4.12: on one line "Carol Díaz,
     Bob Ruiz" was cut at every width, and at 320 px with text spacing even "Carol Dí…"); more
     would leave a small screen too little room for the conversation. */
  .header h2 {
    display: -webkit-box;
    -webkit-box-orient: vertical;
    -webkit-line-clamp: 2;
    margin: 0;
    overflow: hidden;
    font-size: 16px;
    font-weight: 600;
    line-height: 1.25;
    overflow-wrap: anywhere;
  }
  /* A screen this short (a landscape phone, 1280 × 900 at 400 %) keeps its height for the messages. */
  @media (max-height: 320px) {
    .header h2 {
      -webkit-line-clamp: 1;
    }
  }
  .header__sub {
    font-size: 12px;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .header .icon-button:hover:not(:disabled) {
    background: rgba(255, 255, 255, 0.18);
  }
  .header :focus-visible {
    outline-color: currentColor;
    outline-offset: -3px;
  }
  .body {
    flex: 1 1 auto;
    min-height: 0;
    overflow-y: auto;
  }
  .section-title {
    margin: 0;
    padding: 14px 16px 6px;
    font-size: 12px;
    font-weight: 700;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: var(--charla-color-muted, #59606a);
  }
  ul.list {
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .item {
    display: flex;
    align-items: center;
    gap: 12px;
    width: 100%;
    padding: 10px 16px;
    border: 0;
    background: transparent;
    text-align: start;
  }
  .item:hover {
    background: var(--charla-color-surface-alt, #f6f7f9);
  }
  .item:focus-visible {
    outline-offset: -3px;
  }
  .item__text {
    display: flex;
    flex-direction: column;
    flex: 1 1 auto;
    min-width: 0;
  }
  /* Two lines before the "…", as the chat's header (one line cut "Donaudampfschifffahrtsges…"
     with no way to read the rest, at 1280 px as at 320 px). */
  .item__name {
    display: -webkit-box;
    -webkit-box-orient: vertical;
    -webkit-line-clamp: 2;
    font-weight: 600;
    overflow: hidden;
    overflow-wrap: anywhere;
  }
  .item__secondary {
    font-size: 13px;
    color: var(--charla-color-muted, #59606a);
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .count {
    min-width: 22px;
    padding: 2px 7px;
    border-radius: 999px;
    background: var(--charla-color-primary, #2563eb);
    color: var(--charla-color-on-primary, #fff);
    font-size: 12px;
    font-weight: 700;
    text-align: center;
  }
  .empty,
  .loader {
    display: flex;
    align-items: center;
    gap: 8px;
    margin: 0;
    padding: 12px 16px;
    color: var(--charla-color-muted, #59606a);
  }
  /* A long list's next page (ListPagesController). */
  .more {
    display: block;
    width: calc(100% - 32px);
    min-height: 40px;
    margin: 4px 16px 12px;
    border: 1px solid var(--charla-color-border, #d0d5db);
    border-radius: 8px;
    background: transparent;
    color: inherit;
    font-weight: 600;
  }
  .more:hover {
    background: var(--charla-color-surface-alt, #f6f7f9);
  }
  .search {
    padding: 4px 16px 8px;
  }
  .search input {
    box-sizing: border-box;
    width: 100%;
    min-height: 40px;
    padding: 8px 12px;
    border: 1px solid var(--charla-color-muted, #59606a);
    border-radius: 8px;
    background: var(--charla-color-surface, #fff);
    color: inherit;
    font: inherit;
    font-size: 16px;
  }
  /* A choice that failed (home menu, room contacts): the scheme's error colours, as the chat's. It
     stays at the top of the view however far the list is scrolled: said where the
     contact was chosen, a long list's end showed nothing of it. */
  .failure {
    position: sticky;
    top: 8px;
    z-index: 1;
    margin: 8px 16px 0;
    padding: 6px 12px;
    border-radius: 8px;
    background: var(--charla-color-error-surface, #fdecea);
    color: var(--charla-color-error-text, #8a1c12);
    font-size: 13px;
  }
`;
