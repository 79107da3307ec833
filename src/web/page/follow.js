// The conversation follows its newest text: while the owner is at the bottom, whatever grows
// the log — a message, a draft, a photo that finished loading, code highlighted late — keeps
// the bottom in view. Once the owner scrolls up it stays where they are, and a "Jump to
// latest" button offers the way back; reaching the bottom by hand follows again.

/** How near the bottom (px) still counts as at it. */
const SLACK = 48;

/** `log` is the scrolling conversation, `button` the hidden "Jump to latest" button. */
export function createFollow(log, button) {
  let following = true;
  // A first screen is read from its top: nothing follows while it is shown.
  let first;
  let atTop = false;
  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight <= SLACK;

  /** Where the log last put itself: a scroll event that finds it there (or lower) is its own. */
  let placed = 0;
  function toBottom() {
    log.scrollTop = log.scrollHeight;
    placed = log.scrollTop;
  }

  function grew() {
    if (atTop && !first.isConnected) {
      atTop = false;
      following = true;
    }
    if (following) toBottom();
    button.hidden = following || atTop || atBottom();
  }

  // Only the owner's own scrolling decides whether the log follows: a scroll that keeps the
  // bottom in view follows, one up from it stops. The log's own scroll can be reported after
  // more text came (then not at the bottom any more): one that left it where it put itself
  // keeps following.
  log.addEventListener('scroll', () => {
    const own = following && log.scrollTop >= placed - SLACK;
    following = !atTop && (own || atBottom());
    button.hidden = following || atTop;
  });
  new MutationObserver(grew).observe(log, { childList: true, subtree: true, characterData: true });
  // A picture's size is known only once it loads, after the message was added; the log
  // itself shrinks when the box grows or the window does.
  log.addEventListener('load', grew, true);
  new ResizeObserver(grew).observe(log);
  button.addEventListener('click', () => {
    following = true;
    toBottom();
    button.hidden = true;
  });

  return {
    /** Shows the log from its top while `element` (a first screen) is in it. */
    top(element) {
      first = element;
      following = false;
      atTop = true;
      log.scrollTop = 0;
      button.hidden = true;
    },
    /** Follows again from the bottom: a conversation opened, or the owner sent something. */
    follow() {
      following = true;
      atTop = false;
      toBottom();
      button.hidden = true;
    },
  };
}
