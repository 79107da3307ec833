// The tables: by model, by pack, by kind, and the recent turns. Cost comes right after the
// name. Each cell carries its column's name (data-label): on a phone the style sheet shows
// every row as a card of "column  value" lines, so no column is off screen.
import { byId, cached, cost, el, packName, tokens } from './dom.js';

const KINDS = { llm: 'Chat model', stt: 'Speech to text', vision: 'Vision', search: 'Search' };

/**
 * A table; the columns named in `wide` hold longer values, which on a phone take a whole
 * line of the card instead of half of one (where they would wrap).
 */
function table(id, headers, rows, empty, wide = []) {
  const head = el('tr', {}, ...headers.map((h) => el('th', { textContent: h })));
  const cell = (c, i) => {
    const td =
      c instanceof Node ? el('td', { className: 'text' }, c) : el('td', { textContent: c });
    td.dataset.label = headers[i];
    if (wide.includes(headers[i])) td.classList.add('wide');
    return td;
  };
  const body = rows.length
    ? rows.map((cells) => el('tr', {}, ...cells.map(cell)))
    : [el('tr', { className: 'empty' }, el('td', { colSpan: headers.length, textContent: empty }))];
  byId(id).replaceChildren(el('thead', {}, head), el('tbody', {}, ...body));
}

function named(text, unknownPrice) {
  const span = el('span', { textContent: text });
  if (unknownPrice) span.append(el('span', { className: 'badge', textContent: 'price unknown' }));
  return span;
}

function renderTurns(data) {
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: data.timezone,
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  table(
    'turns',
    ['Started', 'Cost', 'Tokens', 'Calls', 'Latency', 'Pack', 'Person', 'Source', 'Chat'],
    data.recent_turns.map((t) => [
      named(when.format(new Date(t.started_at)), false),
      cost(t),
      tokens(t.tokens),
      tokens(t.calls),
      `${(t.latency_ms / 1000).toFixed(1)} s`,
      packName(t.pack),
      t.person ?? '–',
      t.source,
      t.chat === null ? '–' : String(t.chat),
    ]),
    'No turns yet.',
  );
}

export function renderTables(data) {
  const none = `Nothing in the last ${data.days} days.`;
  table(
    'by-model',
    ['Model', 'Cost', 'Calls', 'Tokens', 'Cached input'],
    data.by_model.map((m) => [
      named(`${m.provider}:${m.model}`, m.unknown_price_calls > 0),
      cost(m),
      tokens(m.calls),
      tokens(m.tokens),
      cached(m),
    ]),
    none,
    ['Cached input'],
  );
  table(
    'by-pack',
    ['Pack', 'Cost', 'Calls', 'Tokens', 'Cached input'],
    data.by_pack.map((p) => [
      named(packName(p.pack), false),
      cost(p),
      tokens(p.calls),
      tokens(p.tokens),
      cached(p),
    ]),
    none,
    ['Cached input'],
  );
  table(
    'by-kind',
    ['Kind', 'Cost', 'Calls', 'Tokens', 'Audio', 'Images'],
    data.by_kind.map((k) => [
      named(KINDS[k.kind] ?? k.kind, false),
      cost(k),
      tokens(k.calls),
      tokens(k.tokens),
      k.audio_seconds ? `${Math.round(k.audio_seconds)} s` : '–',
      tokens(k.images),
    ]),
    none,
  );
  renderPeople(data);
  renderJobs(data);
  renderTurns(data);
}

/** What each person cost (SPEC §19): today beside the last 30 days, most spend first. */
function renderPeople(data) {
  const people = data.by_person ?? { today: [], last_30_days: [] };
  const today = new Map(people.today.map((p) => [p.person, p]));
  table(
    'by-person',
    ['Person', 'Today', 'Cost', 'Calls', 'Tokens'],
    people.last_30_days.map((p) => {
      const now = today.get(p.person);
      return [
        named(p.person === 'owner' ? 'owner' : `${p.name} (${p.person})`, false),
        now ? cost(now) : '$0',
        cost(p),
        tokens(p.calls),
        tokens(p.tokens),
      ];
    }),
    'Nobody used me in the last 30 days.',
  );
}

/** What each scheduled job cost in the last 30 days: unattended spend, seen. */
function renderJobs(data) {
  table(
    'by-job',
    ['Job', 'Cost', 'Runs', 'Calls', 'Tokens', 'Pack', 'Chat'],
    (data.by_job ?? []).map((j) => [
      named(j.schedule === null ? `${j.job_id} (removed)` : `${j.job_id} · ${j.schedule}`, false),
      cost(j),
      tokens(j.runs),
      tokens(j.calls),
      tokens(j.tokens),
      packName(j.pack),
      j.chat === null ? '–' : String(j.chat),
    ]),
    'No job ran in the last 30 days.',
  );
}
