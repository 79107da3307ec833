// Actions on messages (SPEC §16): each message's time; Copy on satchel's answers; on the last
// exchange only, Edit on the owner's message, Regenerate on the answer, Retry on a failed
// one (the server takes the exchange back and hands the message on again). Code blocks'
// own copy buttons belong to the renderer: it finds them in `[data-copyable] pre`.

const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const FULL = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

// A time or an action shows its words through CSS (`data-label`), not as text of the bubble:
// the message's text (what a copy or a reader of the log takes) stays only its words.
function actionButton(label, action, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'action';
  button.dataset.label = label;
  button.setAttribute('aria-label', label);
  if (action) {
    button.dataset.action = action;
    button.hidden = true;
  }
  button.addEventListener('click', onClick);
  return button;
}

function timeOf(at) {
  const time = document.createElement('time');
  const date = new Date(at);
  time.dateTime = date.toISOString();
  time.dataset.label = TIME.format(date);
  time.title = FULL.format(date);
  return time;
}

/**
 * `post(path, body)` sends to the server (true when taken), `notify(text)` says something
 * briefly, `box` is the message box (focus goes back to it).
 */
export function createMessageActions({ log, post, notify, box }) {
  async function copy(element, button) {
    const text = element.querySelector('.text')?.innerText ?? '';
    try {
      await navigator.clipboard.writeText(text);
      button.dataset.label = 'Copied';
      setTimeout(() => {
        button.dataset.label = 'Copy';
      }, 1500);
    } catch {
      notify('Could not copy: the browser refused.');
    }
  }

  const redo = (path, body = {}) => post(path, body).catch(() => notify('Not sent: offline?'));

  /** The owner's message becomes a box to change it in; sending redoes the exchange. */
  function edit(element, entry) {
    if (element.querySelector('.editing')) return;
    const form = document.createElement('form');
    form.className = 'editing';
    const label = document.createElement('label');
    label.textContent = 'Edit message';
    const field = document.createElement('textarea');
    field.value = entry.text;
    field.rows = Math.min(8, entry.text.split('\n').length + 1);
    const id = `edit-${entry.id}`;
    field.id = id;
    label.htmlFor = id;
    const send = document.createElement('button');
    send.type = 'submit';
    send.textContent = 'Send again';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', () => close());
    const row = document.createElement('div');
    row.className = 'row';
    row.append(send, cancel);
    form.append(label, field, row);
    const text = element.querySelector('.text');
    text.hidden = true;
    element.append(form);
    field.focus();
    const close = () => {
      form.remove();
      text.hidden = false;
      box.focus();
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // Taken: the server's edit of this message redraws it without the form.
      if (await redo('edit', { text: field.value })) box.focus();
    });
    field.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        close();
      } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  return {
    /** Adds the time and the actions to a message's bubble (`entry` as the server sent it). */
    decorate(element, entry) {
      if (entry.at !== undefined) element.dataset.at = String(entry.at);
      if (entry.failed) element.classList.add('failed');
      const meta = document.createElement('div');
      meta.className = 'meta';
      if (entry.at !== undefined) meta.append(timeOf(entry.at));
      // A question with its buttons is not an answer: only its time, above the buttons.
      if (entry.kind === 'bot' && entry.buttons?.length) {
        element.querySelector('.buttons')?.before(meta);
        return;
      }
      if (entry.kind === 'bot') {
        element.querySelector('.text')?.setAttribute('data-copyable', '');
        if (entry.html !== undefined || entry.text) {
          const button = actionButton('Copy', undefined, () => copy(element, button));
          button.setAttribute('aria-label', 'Copy answer');
          meta.append(button);
        }
        meta.append(
          actionButton('Regenerate', 'regenerate', () => redo('regenerate')),
          actionButton('Retry', 'retry', () => redo('retry')),
        );
      } else if (!entry.attachment && !entry.text.startsWith('/'))
        meta.append(actionButton('Edit', 'edit', () => edit(element, entry)));
      element.append(meta);
    },

    /**
     * Shows the last exchange's actions (and no other's): Edit on the owner's last message
     * and Regenerate (or Retry, when it failed) on the answer after it, once it is answered
     * and nothing runs.
     */
    refresh() {
      for (const button of log.querySelectorAll('[data-action]')) button.hidden = true;
      if (log.getAttribute('aria-busy') === 'true') return;
      const bubbles = [...log.querySelectorAll('.bubble[data-id]:not(.live):not(.working)')];
      const asked = bubbles.findLastIndex((b) => b.classList.contains('user'));
      const answer = bubbles.at(-1);
      if (asked < 0 || answer === bubbles[asked]) return;
      const show = (element, action) => {
        const button = element.querySelector(`:scope > .meta [data-action="${action}"]`);
        if (button) button.hidden = false;
      };
      show(bubbles[asked], 'edit');
      show(answer, answer.classList.contains('failed') ? 'retry' : 'regenerate');
    },
  };
}
