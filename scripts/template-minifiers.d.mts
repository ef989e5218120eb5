/** Types of scripts/template-minifiers.mjs (imported by a browser test). */
export function minifyCss(text: string, options?: { openStart?: boolean; openEnd?: boolean }): string;
export function minifyHtmlPieces(pieces: readonly string[]): string[];
