// The first screen of an empty conversation: the packs, each with its description, as
// choices (a click picks it, as the pack picker's button does), and the commands that can be
// typed (a click puts one in the box). It is drawn from GET /chat/welcome.

function heading(text) {
  const element = document.createElement('h2');
  element.textContent = text;
  return element;
}

function packChoice(pack, { active, default: fallback }, pick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'pack';
  const title = document.createElement('strong');
  title.textContent = pack.title;
  const description = document.createElement('span');
  description.textContent = pack.description;
  button.append(title, description);
  if (pack.name === active) button.setAttribute('aria-pressed', 'true');
  // The default answers what is typed without a choice; another pack in use says so.
  if (pack.name === fallback) title.append(document.createTextNode(' · default'));
  else if (pack.name === active) title.append(document.createTextNode(' · in use'));
  button.addEventListener('click', () => pick(pack.name));
  return button;
}

function commandList(commands, type) {
  const list = document.createElement('ul');
  list.className = 'commands';
  for (const { command, description } of commands) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    const code = document.createElement('code');
    code.textContent = `/${command}`;
    button.append(code);
    button.addEventListener('click', () => type(`/${command}`));
    const text = document.createElement('span');
    text.textContent = description;
    item.append(button, text);
    list.append(item);
  }
  return list;
}

/** The first screen for `welcome`; `pick(name)` picks a pack, `type(text)` fills the box. */
export function welcomeScreen(welcome, { pick, type }) {
  const section = document.createElement('section');
  section.className = 'welcome';
  section.setAttribute('aria-label', 'Start here');
  if (welcome.packs.length > 0) {
    section.append(heading(welcome.active ? 'Packs' : 'Choose a pack'));
    const packs = document.createElement('div');
    packs.className = 'packs';
    packs.append(...welcome.packs.map((p) => packChoice(p, welcome, pick)));
    section.append(packs);
  }
  section.append(heading('Ask anything, or type a command'), commandList(welcome.commands, type));
  return section;
}
