/** Placeholder entry of the self-contained script-tag bundle (the widget core replaces this). */
export { version } from './index.ts';
