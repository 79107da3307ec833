// The model picker in the header (SPEC §16): the models the configured providers offer, as
// /model lists them (GET /chat/models: priced first, with their prices; unpriced marked),
// and "Default". Picking one posts it to /chat/model, which does what pressing that /model
// button does: satchel says in the chat which model answers now.

const money = (usd) => `$${Number(usd.toFixed(3))}`;

/** What an option says: the model, then its price per million tokens or that it has none. */
function label({ ref, price }) {
  return price
    ? `${ref} · ${money(price.input)} in / ${money(price.output)} out per 1M tokens`
    : `${ref} · no price`;
}

/**
 * `select` is the <select>, `post(path, body)` posts as the page does (true when accepted),
 * `current()` is the open conversation's id.
 */
export function createModelPicker({ select, post, current }) {
  let loaded;

  async function refresh() {
    const id = current();
    if (id === undefined) return;
    const response = await fetch(`/chat/models?c=${encodeURIComponent(id)}`).catch(() => undefined);
    if (!response?.ok || id !== current()) return;
    const { models, current: answering, picked } = await response.json();
    const fallback = document.createElement('option');
    fallback.value = 'default';
    fallback.textContent = picked ? 'Default model' : `Default · ${answering}`;
    const options = models.map((model) => {
      const option = document.createElement('option');
      option.value = model.ref;
      option.textContent = label(model);
      return option;
    });
    select.replaceChildren(fallback, ...options);
    // Shown once it has something to offer (an empty box takes the header's room).
    select.hidden = false;
    select.value = picked ? answering : 'default';
    select.title = `Answered by ${answering}`;
    loaded = select.value;
  }

  select.addEventListener('change', async () => {
    const ref = select.value;
    if (ref === loaded) return;
    const done = await post('model', { ref }).catch(() => false);
    if (!done) select.value = loaded;
    else loaded = ref;
  });
  // A /model typed in the chat changes the pick: the list is read again when it is opened.
  select.addEventListener('focus', () => refresh());

  return { refresh };
}
