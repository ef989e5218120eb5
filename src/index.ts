/** Placeholder ESM entry (the widget core replaces this). */
export const version = '0.1.0';
