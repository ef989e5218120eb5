/** Placeholder entry of the typed HTTP client (its owner replaces this). */
export const apiVersion = '0.1.0';
