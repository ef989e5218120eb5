/** Placeholder script-tag entry (the widget core replaces this). */
export {};
