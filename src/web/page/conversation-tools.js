// What is done to one conversation from its "More" menu: export it (a download from
// GET /chat/export) or delete it (POST /chat/delete), with an Undo offered while the server
// keeps it (POST /chat/undo); once that lapsed, GET /chat/deleted says what was removed.

/** How often the page asks whether a deletion's undo lapsed. */
const POLL_MS = 1000;

function item(label, act) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  button.addEventListener('click', act);
  return button;
}

/** The "More" menu of `conversation`'s row: export as Markdown or JSON, and delete. */
export function moreMenu(conversation, { remove }) {
  const menu = document.createElement('details');
  menu.className = 'more';
  const summary = document.createElement('summary');
  summary.textContent = '⋯';
  summary.setAttribute('aria-label', `More for “${conversation.title}”`);
  summary.title = 'Export, delete';
  const actions = document.createElement('div');
  const exported = (format) => () => {
    menu.open = false;
    location.assign(`/chat/export?c=${encodeURIComponent(conversation.id)}&format=${format}`);
  };
  actions.append(
    item('Export as Markdown', exported('md')),
    item('Export as JSON', exported('json')),
    item('Delete', () => {
      menu.open = false;
      remove(conversation);
    }),
  );
  menu.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menu.open) {
      event.stopPropagation();
      menu.open = false;
      summary.focus();
    }
  });
  menu.append(summary, actions);
  return menu;
}

const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * Deleting conversations: `bar` (a status line) says what was deleted with an Undo button,
 * then what was removed. `post(path, body)` posts as the page does (true when accepted),
 * `changed(id, back)` redraws the list (`back`: `id` was brought back).
 */
export function createDeleter({ bar, post, changed }) {
  let poll;

  function say(...parts) {
    bar.replaceChildren(...parts);
    bar.hidden = false;
  }

  async function lapsed(conversation) {
    const response = await fetch(`/chat/deleted?c=${encodeURIComponent(conversation.id)}`).catch(
      () => undefined,
    );
    if (response?.status === 202 || !response) {
      poll = setTimeout(() => lapsed(conversation), POLL_MS);
      return;
    }
    if (!response.ok) return;
    const { messages, uploads, jobs } = await response.json();
    say(
      `Deleted “${conversation.title}”: ${plural(messages, 'message')}, ` +
        `${plural(uploads, 'upload')} and ${plural(jobs, 'job')} removed.`,
    );
  }

  return {
    /** Deletes `conversation`, offering Undo until the server empties it. */
    async remove(conversation) {
      if (!(await post('delete', { conversation: conversation.id }).catch(() => false))) return;
      clearTimeout(poll);
      const undo = item('Undo', async () => {
        clearTimeout(poll);
        if (await post('undo', { conversation: conversation.id }).catch(() => false)) {
          bar.hidden = true;
          changed(conversation.id, true);
        } else lapsed(conversation);
      });
      say(`Deleted “${conversation.title}”. `, undo);
      await changed(conversation.id, false);
      undo.focus();
      poll = setTimeout(() => lapsed(conversation), POLL_MS);
    },
  };
}

/** The search box over the list: what it holds, a moment after typing stops, filters it. */
export function searchBox(input, list) {
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => list.search(input.value), 200);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && input.value !== '') {
      event.stopPropagation();
      input.value = '';
      list.search('');
    }
  });
}
