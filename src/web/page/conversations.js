// The list of conversations beside the chat (a drawer on a phone): each a link that selects
// it, "New conversation", a rename in place (the ✎ button or F2 on the selected one,
// Enter keeps, Escape cancels), a pin, and a "More" menu (export, delete: conversation-tools.js).
// Drawn from GET /chat/conversations, or from GET /chat/search while the search box holds
// words; made with POST /chat/conversations, renamed with POST /chat/rename, pinned with
// POST /chat/pin.
import { moreMenu } from './conversation-tools.js';

/**
 * `list` is the <ul>, `select(id)` opens a conversation, `post(path, body)` posts as the
 * page does (true when accepted), `current()` is the open one's id, `notify(text)` shows why
 * a new one was not made (30 a minute at most).
 */
export function createConversationList({ list, select, post, current, notify, remove }) {
  let shown = [];
  /** The search box's words; while there are some, the list shows what they found. */
  let query = '';

  function renameField(item, conversation) {
    const input = document.createElement('input');
    input.type = 'text';
    input.value = conversation.title;
    input.maxLength = 80;
    input.setAttribute('aria-label', 'Conversation title');
    let done = false;
    const finish = async (keep) => {
      if (done) return;
      done = true;
      const title = input.value.trim();
      if (keep && title && title !== conversation.title)
        await post('rename', { conversation: conversation.id, title }).catch(() => false);
      await refresh(true);
      list.querySelector(`[data-id="${CSS.escape(conversation.id)}"] .select`)?.focus();
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        finish(true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener('blur', () => finish(true));
    item.replaceChildren(input);
    input.focus();
    input.select();
  }

  function row(conversation) {
    const item = document.createElement('li');
    item.dataset.id = conversation.id;
    const link = document.createElement('a');
    link.className = 'select';
    link.href = `#${encodeURIComponent(conversation.id)}`;
    link.textContent = conversation.title;
    if (conversation.id === current()) link.setAttribute('aria-current', 'page');
    link.addEventListener('click', (event) => {
      event.preventDefault();
      select(conversation.id);
    });
    link.addEventListener('keydown', (event) => {
      if (event.key === 'F2') {
        event.preventDefault();
        renameField(item, conversation);
      }
    });
    const rename = document.createElement('button');
    rename.type = 'button';
    rename.className = 'rename';
    rename.textContent = '✎';
    rename.setAttribute('aria-label', `Rename “${conversation.title}”`);
    rename.title = 'Rename (F2)';
    rename.addEventListener('click', () => renameField(item, conversation));
    const pin = document.createElement('button');
    pin.type = 'button';
    pin.className = 'pin';
    pin.textContent = '📌';
    pin.setAttribute('aria-label', `Pin “${conversation.title}”`);
    pin.setAttribute('aria-pressed', String(Boolean(conversation.pinned)));
    pin.title = conversation.pinned ? 'Unpin' : 'Pin to the top';
    pin.addEventListener('click', async () => {
      await post('pin', { conversation: conversation.id, pinned: !conversation.pinned }).catch(
        () => false,
      );
      await refresh(true);
      list.querySelector(`[data-id="${CSS.escape(conversation.id)}"] .pin`)?.focus();
    });
    item.append(link, rename, pin, moreMenu(conversation, { remove }));
    if (conversation.snippet) {
      const found = document.createElement('span');
      found.className = 'snippet';
      found.textContent = conversation.snippet;
      link.append(found);
    }
    return item;
  }

  /** Draws the list again (`force`: also while a title is being typed, to end that). */
  async function refresh(force = false) {
    const searching = query !== '';
    const response = await fetch(
      searching ? `/chat/search?q=${encodeURIComponent(query)}` : '/chat/conversations',
    );
    if (!response.ok) return shown;
    const body = await response.json();
    if (searching !== (query !== '')) return shown;
    shown = searching ? body.found : body.conversations;
    if (searching && shown.length === 0) {
      const none = document.createElement('li');
      none.className = 'none';
      none.textContent = 'No conversation matches.';
      list.replaceChildren(none);
      return shown;
    }
    // Not while a title is being typed: the next refresh draws it.
    const typing =
      list.contains(document.activeElement) && document.activeElement.tagName === 'INPUT';
    if (force || !typing) list.replaceChildren(...shown.map(row));
    return shown;
  }

  return {
    refresh,
    /** Shows what `words` find (all of the list when there are none). */
    search(words) {
      query = words.trim();
      return refresh(true);
    },
    /** Makes a new conversation and opens it. */
    async create() {
      const response = await fetch('/chat/conversations', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        notify(problem.error ?? `The server answered ${response.status}.`);
        return;
      }
      const { conversation } = await response.json();
      select(conversation.id);
    },
  };
}
