// Files for the web chat: attached by the picker, dropped on the page or pasted into the box,
// held in a tray until Send, then uploaded one by one to /chat/upload (the file as the body,
// what it is in the query). Voice is recorded with MediaRecorder and uploaded the same way.

/** The server's limit and words (the same as Telegram's): refused here before uploading. */
const MAX_BYTES = 20 * 1024 * 1024;
const TOO_BIG = 'That file is too big for me: I can take files up to 20 MB.';
/** Telegram's caption limit: longer text goes first as a message of its own. */
export const MAX_CAPTION = 1024;
/** Pictures the model is shown as photos; any other file goes as a document. */
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
/** What the browser may record, best first (Whisper takes each by its name). */
const RECORDING_TYPES = [
  'audio/webm;codecs=opus',
  'audio/ogg;codecs=opus',
  'audio/mp4',
  'audio/webm',
];

/** Uploads one file; resolves with undefined, or the server's reason when it refused. */
async function upload(kind, blob, params) {
  const url = new URL('/chat/upload', location.origin);
  // The conversation open now: the page's address names it (chat.js keeps it so).
  const conversation = decodeURIComponent(location.hash.slice(1));
  if (conversation) url.searchParams.set('c', conversation);
  url.searchParams.set('kind', kind);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  const type = blob.type || 'application/octet-stream';
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': type },
    body: blob,
  });
  if (response.ok) return undefined;
  const problem = await response.json().catch(() => ({}));
  return problem.error ?? `The server answered ${response.status}.`;
}

/**
 * What a sent file looks like in its bubble: the picture, or the name, or the recording —
 * with what it said once it is transcribed.
 */
export function attachmentView(attachment) {
  if (attachment.kind === 'photo') {
    const image = document.createElement('img');
    image.className = 'thumb';
    image.src = `/chat/files/${encodeURIComponent(attachment.image)}`;
    image.alt = 'Photo you sent';
    return image;
  }
  const line = document.createElement('div');
  line.className = `sent-file ${attachment.kind}`;
  line.append(
    icon(attachment.kind === 'voice' ? MIC : PAGE),
    attachment.kind === 'voice'
      ? `Voice message${attachment.seconds ? ` · ${clock(attachment.seconds)}` : ''}`
      : attachment.name,
  );
  if (attachment.kind !== 'voice' || !attachment.transcript) return line;
  const view = document.createDocumentFragment();
  const words = document.createElement('p');
  words.className = 'transcript';
  words.textContent = attachment.transcript;
  view.append(line, words);
  return view;
}

/** Outlines of a page and a microphone (24×24), drawn as the buttons' icons are. */
const PAGE = 'M6 2.5h8l4.5 4.5v14.5H6zM14 2.5V7h4.5';
const MIC = 'M9 6a3 3 0 0 1 6 0v5a3 3 0 0 1-6 0zM5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21';

function icon(outline) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', outline);
  svg.append(path);
  return svg;
}

const clock = (seconds) =>
  `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

/**
 * The tray of files waiting for Send. `notify` shows a short notice; `postText` sends a line
 * (for text too long to be a caption).
 */
export function createAttachments({ tray, picker, button, dropZone, box, notify, postText }) {
  const pending = [];

  function render() {
    tray.replaceChildren(
      ...pending.map((file, index) => {
        const item = document.createElement('li');
        if (PHOTO_TYPES.includes(file.type)) {
          const preview = document.createElement('img');
          preview.alt = '';
          const reader = new FileReader();
          reader.addEventListener('load', () => {
            preview.src = reader.result;
          });
          reader.readAsDataURL(file);
          item.append(preview);
        }
        const name = document.createElement('span');
        name.textContent = file.name;
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.textContent = '×';
        remove.setAttribute('aria-label', `Remove ${file.name}`);
        remove.addEventListener('click', () => {
          pending.splice(index, 1);
          render();
          box.focus();
        });
        item.append(name, remove);
        return item;
      }),
    );
    tray.hidden = pending.length === 0;
  }

  function add(files) {
    for (const file of files) {
      if (file.size > MAX_BYTES) notify(TOO_BIG);
      else pending.push(file);
    }
    render();
  }

  button.addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    add(picker.files);
    picker.value = '';
    box.focus();
  });
  const carriesFiles = (event) => event.dataTransfer?.types.includes('Files');
  dropZone.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    dropZone.classList.add('dropping');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dropping'));
  dropZone.addEventListener('drop', (event) => {
    dropZone.classList.remove('dropping');
    if (!event.dataTransfer?.files.length) return;
    event.preventDefault();
    add(event.dataTransfer.files);
    box.focus();
  });
  box.addEventListener('paste', (event) => {
    const files = event.clipboardData?.files;
    if (!files?.length) return;
    event.preventDefault();
    add(files);
  });

  return {
    count: () => pending.length,

    /**
     * Sends the waiting files, `text` as the first one's caption (or first, as a line of its
     * own, when it is too long for one). True when everything went; what failed stays.
     */
    async send(text) {
      let caption = text.trim();
      if (caption.length > MAX_CAPTION) {
        if (!(await postText(text))) return false;
        caption = '';
      }
      const photos = pending.filter((f) => PHOTO_TYPES.includes(f.type)).length;
      const album = photos > 1 ? crypto.randomUUID() : undefined;
      while (pending.length > 0) {
        const file = pending[0];
        const photo = PHOTO_TYPES.includes(file.type);
        const params = { name: file.name, caption, ...(photo ? { album } : {}) };
        const refused = await upload(photo ? 'photo' : 'document', file, params);
        if (refused) {
          notify(refused);
          render();
          return false;
        }
        pending.shift();
        caption = '';
      }
      render();
      return true;
    },
  };
}

/**
 * The microphone button: a press starts recording, the next sends the recording as a voice
 * message; Cancel (or Escape) while recording throws it away and sends nothing. Shown only
 * once the server says speech-to-text is set up (`offer(true)`) and where the browser can
 * record (MediaRecorder, on a secure origin such as 127.0.0.1).
 */
export function createRecorder({ button, notify }) {
  const canRecord = !!navigator.mediaDevices?.getUserMedia && typeof MediaRecorder !== 'undefined';
  button.hidden = true;
  const label = button.getAttribute('aria-label');
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.id = 'record-cancel';
  cancel.textContent = 'Cancel';
  cancel.title = 'Cancel recording (Esc)';
  cancel.setAttribute('aria-keyshortcuts', 'Escape');
  cancel.hidden = true;
  button.after(cancel);
  let recording;
  let starting = false;

  function show(active, seconds = 0) {
    button.setAttribute('aria-pressed', String(active));
    // The time shown is part of its name (what is seen is what is said).
    button.setAttribute('aria-label', active ? `Stop recording and send ${clock(seconds)}` : label);
    button.title = active ? `Recording ${clock(seconds)}: press to send` : label;
    button.querySelector('.elapsed').textContent = active ? clock(seconds) : '';
    cancel.hidden = !active;
  }

  async function start() {
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      notify('The microphone is not available: allow it for this page to record.');
      return;
    }
    const mimeType = RECORDING_TYPES.find((t) => MediaRecorder.isTypeSupported(t));
    const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
    const chunks = [];
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const timer = setInterval(() => show(true, seconds()), 250);
    recording = { recorder, timer, cancelled: false };
    const current = recording;
    recorder.addEventListener('dataavailable', (event) => chunks.push(event.data));
    recorder.addEventListener('stop', async () => {
      for (const track of stream.getTracks()) track.stop();
      if (current.cancelled) return;
      const blob = new Blob(chunks, { type: recorder.mimeType });
      const refused = await upload('voice', blob, {
        name: 'voice',
        duration: seconds().toFixed(1),
      });
      if (refused) notify(refused);
    });
    recorder.start();
    show(true);
  }

  /** Ends the recording: sent, or thrown away (`cancelled`). */
  function finish(cancelled) {
    clearInterval(recording.timer);
    recording.cancelled = cancelled;
    recording.recorder.stop();
    recording = undefined;
    show(false);
  }

  button.addEventListener('click', () => {
    if (starting) return;
    if (!recording) {
      starting = true;
      start()
        .catch(() => notify('Could not record.'))
        .finally(() => {
          starting = false;
        });
      return;
    }
    finish(false);
  });
  cancel.addEventListener('click', () => {
    if (recording) finish(true);
    button.focus();
  });
  // Before the page's own Escape (which stops a running answer): while recording, Escape
  // only throws the recording away.
  window.addEventListener(
    'keydown',
    (event) => {
      if (event.key !== 'Escape' || event.isComposing || !recording) return;
      event.preventDefault();
      event.stopPropagation();
      finish(true);
      button.focus();
    },
    true,
  );

  return {
    /** Whether speech-to-text is set up: the microphone is shown only then. */
    offer(on) {
      button.hidden = !(on && canRecord);
      if (button.hidden && recording) finish(true);
    },
  };
}
