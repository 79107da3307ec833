// A message from a scheduled job that arrives while the page is in the background raises a
// browser notification. Permission is asked for only when the owner clicks the button for it
// (shown while the browser has neither granted nor refused). The server marks a job's message
// (`job`: its pack, from the outbox row the job's answer was written as), so an answer to the
// owner never notifies, however slow, and a job's message does, whatever else is running.

const MAX_BODY = 180;

const supported = () => 'Notification' in window;

/** `button` asks for permission; `name(entry)` is what a job's notification is titled. */
export function createNotifier(button, name) {
  function showButton() {
    button.hidden = !supported() || Notification.permission !== 'default';
  }
  button.addEventListener('click', async () => {
    await Notification.requestPermission();
    showButton();
  });
  showButton();

  return {
    /** A message from satchel that just arrived, `words` its visible text. */
    message(entry, words) {
      if (!entry.job || !supported() || Notification.permission !== 'granted') return;
      if (!document.hidden) return;
      // A spoken answer's player follows its text, which was the news.
      if (words.trim() === '') return;
      const body = words.length > MAX_BODY ? `${words.slice(0, MAX_BODY - 1)}…` : words;
      const shown = new Notification(name(entry), { body });
      shown.addEventListener('click', () => {
        window.focus();
        shown.close();
      });
    },
  };
}
