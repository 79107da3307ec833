// Keyboard shortcuts of the page: Ctrl+Shift+O (⌘⇧O on a Mac) makes a new conversation, as
// the "New conversation" button does; Ctrl+K (⌘K) puts the keyboard in the conversation
// search, the element #search, and does nothing on a page without one.

/** `newConversation` is the "New conversation" button. */
export function bindShortcuts(newConversation) {
  document.addEventListener('keydown', (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.isComposing) return;
    const key = event.key.toLowerCase();
    if (event.shiftKey && key === 'o') {
      event.preventDefault();
      newConversation.click();
    } else if (!event.shiftKey && key === 'k') {
      const search = document.getElementById('search');
      if (!search) return;
      event.preventDefault();
      search.focus();
      search.select?.();
    }
  });
}
