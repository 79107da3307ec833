// The web chat: the conversation arrives as server-sent events from /chat/events (a snapshot,
// then each change), lines go to /chat/send and button presses to /chat/press, files and
// voice recordings to /chat/upload (attach.js). Everything is drawn with DOM calls: the
// server's markup goes through markup.js, plain text is textContent.
import { attachmentView, createAttachments, createRecorder } from './attach.js';
import { fromMarkup } from './markup.js';

const log = document.getElementById('log');
const status = document.getElementById('status');
const notice = document.getElementById('notice');
const form = document.getElementById('composer');
const box = document.getElementById('message');
let live;
let noticeTimer;

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

function bubble(entry) {
  const element = document.createElement('div');
  element.className = `bubble ${entry.kind}`;
  element.dataset.id = String(entry.id);
  if (entry.attachment) element.append(attachmentView(entry.attachment));
  const text = document.createElement('div');
  text.className = 'text';
  text.append(entry.kind === 'user' ? document.createTextNode(entry.text) : content(entry));
  if (entry.kind !== 'user' || entry.text) element.append(text);
  if (entry.buttons) element.append(buttons(entry));
  return element;
}

const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 80;
function show(change) {
  const follow = nearBottom();
  change();
  if (follow) log.scrollTop = log.scrollHeight;
}

function endDraft() {
  live?.remove();
  live = undefined;
}

function draft(body) {
  if (!live) {
    live = bubble({ kind: 'bot', id: 'draft', ...body });
    live.classList.add('live');
    log.append(live);
  } else live.querySelector('.text').replaceChildren(content(body));
}

const byId = (id) => log.querySelector(`[data-id="${CSS.escape(String(id))}"]`);

const handlers = {
  snapshot: (s) => {
    live = undefined;
    log.replaceChildren(...s.entries.map(bubble));
    if (s.draft) draft(s.draft);
    log.scrollTop = log.scrollHeight;
  },
  entry: ({ entry }) => {
    if (entry.kind === 'bot') endDraft();
    log.append(bubble(entry));
  },
  edit: ({ entry }) => {
    const shown = byId(entry.id);
    // A pressed button goes with its message: the keyboard goes back to the box, not the page.
    const hadFocus = shown?.contains(document.activeElement);
    shown?.replaceWith(bubble(entry));
    if (hadFocus) box.focus();
  },
  delete: ({ id }) => byId(id)?.remove(),
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
  const source = new EventSource('/chat/events');
  for (const [type, handle] of Object.entries(handlers))
    source.addEventListener(type, (event) => show(() => handle(JSON.parse(event.data))));
  source.addEventListener('open', () => {
    status.textContent = 'Connected';
    status.className = '';
  });
  source.addEventListener('error', () => {
    status.textContent = 'Reconnecting…';
    status.className = 'error';
  });
}

async function post(path, body) {
  const response = await fetch(`/chat/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.ok) return true;
  const problem = await response.json().catch(() => ({}));
  handlers.notice({ text: problem.error ?? `The server answered ${response.status}.` });
  return false;
}

function press(message, data) {
  post('press', { message, data }).catch(() => handlers.notice({ text: 'Not sent: offline?' }));
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
createRecorder({
  button: document.getElementById('record'),
  notify: (text) => handlers.notice({ text }),
});

async function send() {
  const text = box.value;
  if (attachments.count() > 0) {
    try {
      if (await attachments.send(text)) box.value = '';
    } catch {
      handlers.notice({ text: 'Not sent: offline?' });
    }
    box.focus();
    return;
  }
  if (text.trim() === '') return;
  try {
    if (await post('send', { text })) box.value = '';
  } catch {
    handlers.notice({ text: 'Not sent: offline?' });
  }
  box.focus();
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
connect();
box.focus();
