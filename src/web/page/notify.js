// A message from a scheduled job that arrives while the page is in the background raises a
// browser notification. Permission is asked for only when the owner clicks the button for it
// (shown while the browser has neither granted nor refused). The page tells a job's message
// from an answer by what came before it: a job's run neither streams nor shows "working",
// while a turn the owner started shows one or the other at least every 4 s until its answer.
// So a message from satchel with no sign of a running turn (nor a line from the owner) in
// the last QUIET_MS is one nobody here asked for just now.

const QUIET_MS = 6_000;
const MAX_BODY = 180;

const supported = () => 'Notification' in window;

/** `button` asks for permission; `name()` is what the notification is titled. */
export function createNotifier(button, name) {
  let lastSign = 0;

  function showButton() {
    button.hidden = !supported() || Notification.permission !== 'default';
  }
  button.addEventListener('click', async () => {
    await Notification.requestPermission();
    showButton();
  });
  showButton();

  return {
    /** A sign of a turn the owner started: their line, "working", a draft, a press. */
    turnSign() {
      lastSign = Date.now();
    },
    /** A message from satchel, `words` its visible text. */
    message(words) {
      if (!supported() || Notification.permission !== 'granted' || !document.hidden) return;
      // A spoken answer's player follows its text, which was the news.
      if (words.trim() === '') return;
      if (Date.now() - lastSign < QUIET_MS) return;
      const body = words.length > MAX_BODY ? `${words.slice(0, MAX_BODY - 1)}…` : words;
      const shown = new Notification(name(), { body });
      shown.addEventListener('click', () => {
        window.focus();
        shown.close();
      });
    },
  };
}
