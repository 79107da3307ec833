// The header and the page's title name the conversation open and the pack that answers in it
// ("Fern care · Alpha Garden · satchel"), from GET /chat/conversations (its title) and
// GET /chat/welcome (its pack: the one bound, or the only one installed; none while the
// owner has still to choose). `refresh()` after anything that may rename either: the
// conversation opened, the list redrawn (a first line or a rename names it), an answer (a
// pack chosen). Refreshes coalesce: one runs at a time, and one more after it if asked.
// `nameFor(pack)` is the same name with another pack's title (a scheduled job's).

const BRAND = 'satchel';

async function json(path) {
  const response = await fetch(path);
  return response.ok ? response.json() : undefined;
}

/** `where` is the header's element for the names, `current()` the open conversation's id. */
export function createHeading(where, current) {
  const title = where.querySelector('.title');
  const pack = where.querySelector('.pack');
  let running;
  let again = false;
  /** What was shown last: the conversation's title and the packs' titles by name. */
  let shown = { conversation: undefined, packs: new Map() };

  const nameOf = (conversation, packTitle) =>
    [conversation, packTitle, BRAND].filter(Boolean).join(' · ');

  function show(conversation, packTitle) {
    where.hidden = !conversation;
    title.textContent = conversation ?? '';
    pack.textContent = packTitle ?? '';
    pack.hidden = !packTitle;
    document.title = nameOf(conversation, packTitle);
  }

  async function load() {
    const id = current();
    if (id === undefined) return;
    // The list first: a conversation no longer in it (deleted, its undo pending) has no pack
    // to ask for.
    const list = await json('/chat/conversations');
    const conversation = list?.conversations.find((c) => c.id === id)?.title;
    const welcome =
      conversation === undefined
        ? undefined
        : await json(`/chat/welcome?c=${encodeURIComponent(id)}`);
    if (id !== current()) return;
    const packs = new Map((welcome?.packs ?? []).map((p) => [p.name, p.title]));
    shown = { conversation, packs };
    show(conversation, packs.get(welcome?.active));
  }

  async function refresh() {
    if (running) {
      again = true;
      return running;
    }
    running = load().catch(() => undefined);
    await running;
    running = undefined;
    if (again) {
      again = false;
      await refresh();
    }
  }

  return {
    refresh,
    /** The open conversation's name with the title of `pack` (its name when unknown). */
    nameFor: (pack) => nameOf(shown.conversation, shown.packs.get(pack) ?? pack),
  };
}
