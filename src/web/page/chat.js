// The web chat: the open conversation (conversations.js lists them all) arrives as server-sent events from /chat/events (a snapshot,
// then each change), lines go to /chat/send, button presses to /chat/press, files and
// voice recordings to /chat/upload (attach.js), the Stop button (and Escape) to /chat/stop,
// a pack chosen on the first screen to /chat/pick, and the last exchange's Edit, Regenerate
// and Retry (message-actions.js) to /chat/edit, /chat/regenerate and /chat/retry. Everything
// is drawn with DOM calls: the server's markup goes through markup.js, plain text is
// textContent. How the page behaves lives in small modules wired here: follow.js (the newest
// text in view, "Jump to latest"), heading.js (the conversation and pack in the header and
// title), shortcuts.js, grow.js (the box), notify.js (scheduled messages in a background
// tab), enrich.js (code and math, through rich.js).
import { attachmentView, createAttachments, createRecorder } from './attach.js';
import { createDeleter, searchBox } from './conversation-tools.js';
import { createConversationList } from './conversations.js';
import { enrichSoon } from './enrich.js';
import { createFollow } from './follow.js';
import { growWithText } from './grow.js';
import { createHeading } from './heading.js';
import { fromMarkup } from './markup.js';
import { createMessageActions } from './message-actions.js';
import { createModelPicker } from './model-picker.js';
import { createNotifier } from './notify.js';
import { bindShortcuts } from './shortcuts.js';
import { createTurnView } from './turn.js';
import { welcomeScreen } from './welcome.js';

const log = document.getElementById('log');
const status = document.getElementById('status');
const notice = document.getElementById('notice');
const form = document.getElementById('composer');
const box = document.getElementById('message');
const stopButton = document.getElementById('stop');
const turn = createTurnView(log, stopButton);
const follow = createFollow(log, document.getElementById('jump'));
const heading = createHeading(document.getElementById('where'), () => conversation);
const notifier = createNotifier(document.getElementById('notifications'), (entry) =>
  heading.nameFor(entry.job),
);
let live;
let noticeTimer;
/** The conversation open now (the address says it as `#<id>`, so a reload keeps it). */
let conversation = decodeURIComponent(location.hash.slice(1)) || undefined;
let source;
/** The first screen, while the conversation is empty. */
let welcome;

function content(entry) {
  return entry.html !== undefined ? fromMarkup(entry.html) : document.createTextNode(entry.text);
}

function buttons(entry) {
  const rows = document.createElement('div');
  rows.className = 'buttons';
  for (const row of entry.buttons ?? []) {
    const line = document.createElement('div');
    for (const button of row) {
      const element = document.createElement('button');
      element.type = 'button';
      element.textContent = button.text;
      element.addEventListener('click', () => press(entry.id, button.data));
      line.append(element);
    }
    rows.append(line);
  }
  return rows;
}

/** A voice note satchel sent (a spoken answer): a player for its file. */
function voicePlayer(id) {
  const audio = document.createElement('audio');
  audio.controls = true;
  audio.preload = 'metadata';
  audio.src = `/chat/files/${encodeURIComponent(id)}`;
  audio.setAttribute('aria-label', 'Voice reply');
  return audio;
}

function bubble(entry) {
  const element = document.createElement('div');
  element.className = `bubble ${entry.kind}`;
  element.dataset.id = String(entry.id);
  if (entry.attachment) element.append(attachmentView(entry.attachment));
  if (entry.voice) element.append(voicePlayer(entry.voice));
  const text = document.createElement('div');
  text.className = 'text';
  text.append(entry.kind === 'user' ? document.createTextNode(entry.text) : content(entry));
  if (entry.html !== undefined || entry.text) element.append(text);
  if (entry.html !== undefined) enrichSoon(text);
  if (entry.buttons) element.append(buttons(entry));
  // Its time and actions; a draft has neither until it is the message.
  if (entry.id !== 'draft') actions.decorate(element, entry);
  return element;
}

/** Applies an event's change; the last exchange's actions follow it (follow.js scrolls). */
function show(change) {
  change();
  actions.refresh();
}

function endDraft() {
  live?.remove();
  live = undefined;
}

/** Puts `element` before the entry `before` (when it is shown), else last. */
function place(element, before) {
  const next = before === undefined ? undefined : byId(before);
  if (next) next.before(element);
  else log.append(element);
}

function draft(body, before) {
  welcome?.remove();
  if (!live) {
    live = bubble({ kind: 'bot', id: 'draft', ...body });
    live.classList.add('live');
    place(live, before);
  } else {
    const text = live.querySelector('.text');
    text.replaceChildren(content(body));
    if (body.html !== undefined) enrichSoon(text);
  }
  turn.drafting(true);
}

/** Shows the first screen when the conversation is empty (fetched once, then kept). */
async function showWelcome() {
  try {
    const response = await fetch(`/chat/welcome?c=${encodeURIComponent(conversation)}`);
    if (!response.ok) return;
    const data = await response.json();
    if (log.querySelector('.bubble:not(.working)')) return;
    welcome?.remove();
    welcome = welcomeScreen(data, {
      pick: (pack) => post('pick', { pack }).catch(offline),
      type: (text) => {
        box.value = `${text} `;
        box.focus();
      },
    });
    log.prepend(welcome);
    follow.top(welcome);
  } catch {
    // Offline: the empty log says it for now; the next snapshot tries again.
  }
}

const byId = (id) => log.querySelector(`[data-id="${CSS.escape(String(id))}"]`);

const handlers = {
  snapshot: (s) => {
    // A page that named no conversation is shown the most recently used: now it knows which.
    if (s.conversation && s.conversation !== conversation) {
      conversation = s.conversation;
      history.replaceState(null, '', `#${encodeURIComponent(conversation)}`);
      conversations.refresh();
    }
    recorder.offer(s.voiceInput === true);
    live = undefined;
    modelPicker.refresh();
    log.replaceChildren(...s.entries.map(bubble));
    turn.answered();
    if (s.working) turn.working();
    if (s.draft) draft(s.draft, s.draftBefore);
    if (s.entries.length === 0 && !s.draft) showWelcome();
    follow.follow();
    heading.refresh();
  },
  entry: ({ entry, before }) => {
    welcome?.remove();
    if (entry.kind === 'bot') endDraft();
    // An answer takes its draft's place: above what was typed while it was written.
    const shown = bubble(entry);
    place(shown, before);
    if (entry.kind === 'bot') {
      turn.answered();
      notifier.message(entry, shown.querySelector('.text')?.textContent ?? '');
      // An answer may come from a pack just chosen.
      heading.refresh();
    } else turn.refresh();
  },
  working: () => turn.working(),
  edit: ({ entry }) => {
    const shown = byId(entry.id);
    // A pressed button goes with its message: the keyboard goes back to the box, not the page.
    const hadFocus = shown?.contains(document.activeElement);
    shown?.replaceWith(bubble(entry));
    if (hadFocus) box.focus();
  },
  delete: ({ id }) => byId(id)?.remove(),
  // The model named the conversation after its first exchange: the list shows it.
  titled: () => conversations.refresh(),
  draft: (body) => draft(body),
  notice: ({ text }) => {
    notice.textContent = text;
    notice.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => {
      notice.hidden = true;
    }, 4000);
  },
};

function connect() {
  source?.close();
  const named = conversation !== undefined;
  source = new EventSource(
    named ? `/chat/events?c=${encodeURIComponent(conversation)}` : '/chat/events',
  );
  for (const [type, handle] of Object.entries(handlers))
    source.addEventListener(type, (event) => show(() => handle(JSON.parse(event.data))));
  const opened = source;
  source.addEventListener('open', () => {
    status.textContent = 'Connected';
    status.className = '';
  });
  source.addEventListener('error', () => {
    status.textContent = 'Reconnecting…';
    status.className = 'error';
    // Reconnect to the conversation shown, not whichever is the most recent by then.
    if (!named && conversation !== undefined) setTimeout(connect, 1000);
    // The browser retries a lost connection (a restart) itself; a refused one it gives up.
    else if (opened.readyState === EventSource.CLOSED) setTimeout(() => retry(opened), 1000);
  });
}

/**
 * After the events were refused: without a valid cookie the page reloads into the sign-in
 * page; otherwise it connects again (the server may still be starting).
 */
async function retry(closed) {
  if (source !== closed) return;
  try {
    const response = await fetch('/chat/conversations');
    if (response.status === 401) {
      location.reload();
      return;
    }
  } catch {
    // Still down: try again below.
  }
  connect();
}

async function post(path, body) {
  const response = await fetch(`/chat/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ conversation, ...body }),
  });
  if (response.ok) return true;
  const problem = await response.json().catch(() => ({}));
  handlers.notice({ text: problem.error ?? `The server answered ${response.status}.` });
  return false;
}

const offline = () => handlers.notice({ text: 'Not sent: offline?' });

const actions = createMessageActions({
  log,
  post,
  notify: (text) => handlers.notice({ text }),
  box,
});

function press(message, data) {
  post('press', { message, data }).catch(offline);
}

const attachments = createAttachments({
  tray: document.getElementById('attachments'),
  picker: document.getElementById('files'),
  button: document.getElementById('attach'),
  dropZone: document.querySelector('main'),
  box,
  notify: (text) => handlers.notice({ text }),
  postText: (text) => post('send', { text }),
});
const recorder = createRecorder({
  button: document.getElementById('record'),
  notify: (text) => handlers.notice({ text }),
});

async function send() {
  const text = box.value;
  // What the owner sends, and its answer, are what they want to see next.
  follow.follow();
  if (attachments.count() > 0) {
    try {
      if (await attachments.send(text)) {
        box.value = '';
        // A caption names a new conversation as a first line does.
        conversations.refresh();
      }
    } catch {
      handlers.notice({ text: 'Not sent: offline?' });
    }
    box.focus();
    return;
  }
  if (text.trim() === '') return;
  // The box empties at once, as the message leaves: its answer may arrive before the
  // POST's. A refused or lost message comes back into it, unless something new was typed.
  box.value = '';
  // Working from now, for the same reason: the answer (or its first draft) ends it.
  const working = !/^\/stop\b/i.test(text.trim());
  if (working) turn.working();
  let sent = false;
  try {
    sent = await post('send', { text });
  } catch {
    offline();
  }
  if (sent) {
    // Its first line names a new conversation.
    conversations.refresh();
  } else {
    if (working) turn.answered();
    if (box.value === '') box.value = text;
  }
  box.focus();
}

/** The Stop button and Escape: what /stop does, while a turn runs. */
async function stop() {
  if (!turn.running || stopButton.disabled) return;
  stopButton.disabled = true;
  try {
    await post('stop', {});
  } catch {
    offline();
  } finally {
    stopButton.disabled = false;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
box.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
stopButton.addEventListener('click', () => {
  stop();
  box.focus();
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !event.isComposing && turn.running) {
    event.preventDefault();
    stop();
  }
});
const drawer = document.getElementById('drawer');
const toggle = document.getElementById('drawer-toggle');
function openDrawer(open) {
  drawer.classList.toggle('open', open);
  toggle.setAttribute('aria-expanded', String(open));
  if (open) (drawer.querySelector('[aria-current]') ?? drawer.querySelector('button'))?.focus();
}
toggle.addEventListener('click', () => openDrawer(!drawer.classList.contains('open')));
drawer.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && drawer.classList.contains('open')) {
    event.stopPropagation();
    openDrawer(false);
    toggle.focus();
  }
});

/** Opens conversation `id`: its events, its first screen, its address. */
function select(id) {
  conversation = id;
  history.replaceState(null, '', `#${encodeURIComponent(id)}`);
  turn.answered();
  welcome?.remove();
  welcome = undefined;
  connect();
  conversations.refresh();
  openDrawer(false);
  box.focus();
}

const conversations = createConversationList({
  list: document.getElementById('conversations'),
  select,
  post,
  current: () => conversation,
  notify: (text) => handlers.notice({ text }),
  // The open conversation's events end with it: none may redraw a conversation going away.
  remove: async (c) => {
    const open = c.id === conversation;
    if (open) source?.close();
    await deleter.remove(c);
    // Refused: it stays, and is followed again.
    if (open && conversation === c.id) connect();
  },
});
const newConversation = document.getElementById('new-conversation');
newConversation.addEventListener('click', () => conversations.create());
bindShortcuts(newConversation);
growWithText(box);
// The list is redrawn when a conversation is made, named or opened: the header follows it.
new MutationObserver(() => heading.refresh()).observe(document.getElementById('conversations'), {
  childList: true,
});
searchBox(document.getElementById('search'), conversations);
const modelPicker = createModelPicker({
  select: document.getElementById('model'),
  post,
  current: () => conversation,
});
const deleter = createDeleter({
  bar: document.getElementById('deleted'),
  post,
  /** The list after a deletion (or its undo); the open one gone, the one used last opens. */
  changed: async (id, back) => {
    await conversations.refresh(true);
    if (back) select(id);
    else if (id === conversation) {
      conversation = undefined;
      history.replaceState(null, '', location.pathname);
      connect();
    }
  },
});

// Without a choice in the address, the most recently used (the list's first).
// A conversation named in the address opens; else the most recently used, as the server
// says in its snapshot.
conversations.refresh().then((listed) => {
  if (conversation !== undefined && listed.some((c) => c.id === conversation)) select(conversation);
  else {
    conversation = undefined;
    connect();
  }
});
box.focus();
