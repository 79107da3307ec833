// The turn as the page shows it: a "Working…" indicator from the moment a line is sent (or
// the server says satchel is working) until the first text, and a Stop button while a turn
// runs. The server's sign is the turn's typing action, repeated every 4 s while it works; a
// message from satchel ends it. Without a sign for WORKING_FOR_MS (a line parked behind the
// pack picker, a page that missed the end) the page stops showing it.
const WORKING_FOR_MS = 10_000;

function indicator() {
  const element = document.createElement('div');
  element.className = 'bubble bot working';
  element.id = 'working';
  const dots = document.createElement('span');
  dots.className = 'dots';
  dots.setAttribute('aria-hidden', 'true');
  dots.append(...[0, 1, 2].map(() => document.createElement('i')));
  element.append(dots, document.createTextNode('Working…'));
  return element;
}

/**
 * `log` is the conversation, `stop` the Stop button. `working()` when satchel works (or a
 * line was just sent), `drafting(on)` while a draft shows, `answered()` on a message from
 * satchel, `refresh()` after the log changed (the indicator stays last).
 */
export function createTurnView(log, stop) {
  const shown = indicator();
  let until = 0;
  let drafting = false;
  let timer;

  function refresh() {
    const working = Date.now() < until;
    const running = working || drafting;
    if (working && !drafting) log.append(shown);
    else shown.remove();
    stop.hidden = !running;
    // Screen readers read the answer once it is whole, not every draft of it.
    log.setAttribute('aria-busy', String(running));
  }

  return {
    working() {
      until = Date.now() + WORKING_FOR_MS;
      clearTimeout(timer);
      timer = setTimeout(refresh, WORKING_FOR_MS + 50);
      refresh();
    },
    drafting(on) {
      drafting = on;
      refresh();
    },
    answered() {
      until = 0;
      drafting = false;
      clearTimeout(timer);
      refresh();
    },
    refresh,
    get running() {
      return !stop.hidden;
    },
  };
}
