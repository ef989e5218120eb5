// happy-dom lacks some browser APIs the widget feature-detects; nothing to polyfill yet.
export {};
