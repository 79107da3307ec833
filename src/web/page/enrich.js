// Code blocks and formulas in a message: rich.js labels and highlights the code and typesets
// the math. It is a module of its own (highlight.js and Temml, about 300 KB), loaded with its
// style sheet the first time a message needs it, so a conversation of plain text never
// fetches it and the first text of an answer never waits for it.

let loaded;

function load() {
  if (!loaded) {
    const sheet = document.createElement('link');
    sheet.rel = 'stylesheet';
    sheet.href = '/chat/rich.css';
    document.head.append(sheet);
    loaded = import('./rich.js').catch((error) => {
      // Offline for a moment: the next message tries again; this one keeps its plain code.
      loaded = undefined;
      throw error;
    });
  }
  return loaded;
}

/** Enriches `element` (a message's text) once rich.js is here, if it is still shown then. */
export function enrichSoon(element) {
  if (!element.querySelector('pre[data-lang], span[data-math]')) return;
  load().then(
    ({ enrich }) => {
      if (element.isConnected) enrich(element);
    },
    () => undefined,
  );
}
