// Ketcher keeps its editor state on Node's `global` (global.currentState, global._ui_editor), which
// browsers do not have and Vite does not define: it is the page's global object. Imported before
// Ketcher, so it is set before any of Ketcher's modules run.
const scope = globalThis as typeof globalThis & { global?: typeof globalThis };
scope.global ??= globalThis;
