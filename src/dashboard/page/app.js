// The dashboard page: fetches /api/usage every 10 s while visible and draws it. Loads
// nothing but its own modules (no CDN, no web font), so it works offline.
import { renderChart } from './chart.js';
import { byId, cached, el, styled, tokens, usd } from './dom.js';
import { renderTables } from './tables.js';

const REFRESH_MS = 10_000;
let latest;
let timer;

/** "used of cap, left" with a bar; "no cap" when the cap is 0. */
function meter(label, used, cap, format, note) {
  const line = (left, right) =>
    el(
      'div',
      { className: 'cap-line' },
      el('span', { textContent: left }),
      el('span', { textContent: right }),
    );
  if (!cap) return el('div', { className: 'cap' }, line(label, 'no cap'));
  const share = Math.min(100, (used / cap) * 100);
  return el(
    'div',
    { className: 'cap' },
    line(`${label}: ${format(used)} of ${format(cap)}`, `${format(Math.max(0, cap - used))} left`),
    el(
      'div',
      { className: 'meter' },
      styled('span', { className: share >= 100 ? 'over' : '' }, { width: `${share}%` }),
    ),
    note ? el('div', { className: 'sub', textContent: note }) : null,
  );
}

function card(title, period, extra) {
  const unknown = period.calls > 0 && period.cost_usd === null;
  const amount = el('div', {
    className: unknown ? 'amount unknown' : 'amount',
    textContent: unknown ? 'unknown' : usd(period.cost_usd ?? 0),
  });
  if (period.unknown_price_calls > 0 && !unknown)
    amount.append(
      el('span', { className: 'badge', textContent: `+ ${period.unknown_price_calls} unpriced` }),
    );
  const summary = `${tokens(period.tokens)} tokens (${tokens(period.input_tokens)} in, ${tokens(period.output_tokens)} out) · ${tokens(period.calls)} calls`;
  return el(
    'article',
    { className: 'card' },
    el('h2', { textContent: title }),
    amount,
    el('div', { className: 'sub', textContent: summary }),
    period.cached_input_tokens > 0
      ? el('div', { className: 'sub cache', textContent: `Prompt cache: ${cached(period)}` })
      : null,
    ...extra,
  );
}

function renderPeriods(data) {
  const { caps, today } = data;
  const unpriced = today.unknown_price_calls
    ? `${today.unknown_price_calls} call(s) at unknown price are not in the spend cap`
    : '';
  const session = caps.session_tokens
    ? `Per session: ${tokens(caps.session_tokens)} tokens`
    : 'Per session: no cap';
  byId('periods').replaceChildren(
    card(`Today · ${data.as_of_day}`, today, [
      meter('Tokens', today.tokens, caps.daily_tokens, tokens),
      meter('Spend', caps.used_today.cost_usd ?? 0, caps.daily_usd, usd, unpriced),
      el('div', { className: 'sub', textContent: session }),
    ]),
    card('Last 7 days', data.last_7_days, []),
    card('Last 30 days', data.last_30_days, []),
  );
}

/** The warning for models without a price: listed, their cost unknown, never $0. */
function renderUnknown(data) {
  const box = byId('unknown');
  const models = data.unknown_price_models;
  box.hidden = models.length === 0;
  if (models.length === 0) return box.replaceChildren();
  const calls = models.reduce((n, m) => n + m.calls, 0);
  const list = models.map(
    (m) => `${m.provider}:${m.model} (${tokens(m.calls)} calls, ${tokens(m.tokens)} tokens)`,
  );
  box.replaceChildren(
    el('strong', {
      textContent: `⚠ Unknown prices: ${tokens(calls)} call(s) in the last ${data.days} days used models satchel has no price for.`,
    }),
    el('span', { textContent: `${list.join('; ')}. ` }),
    el(
      'span',
      {},
      'Their cost is shown as unknown (never $0), is left out of the spend totals and does not count against the daily spend cap. Add their prices to your model catalog: the file ',
      el('code', { textContent: 'SATCHEL_MODELS' }),
      ' names, by default ',
      el('code', { textContent: 'SATCHEL_HOME/models.yaml' }),
      ' (',
      el('code', { textContent: 'npx satchel models' }),
      ' shows the catalog and where it is read from).',
    ),
  );
}

function render(data) {
  latest = data;
  renderUnknown(data);
  renderPeriods(data);
  renderChart(data);
  renderTables(data);
  byId('footer').textContent =
    `Days are cut in ${data.timezone}. Refreshes every 10 seconds while open.`;
}

function status(text, error) {
  const node = byId('status');
  node.textContent = text;
  node.className = error ? 'error' : '';
}

async function refresh() {
  clearTimeout(timer);
  try {
    const response = await fetch('/api/usage', { cache: 'no-store', credentials: 'same-origin' });
    if (response.status === 401) {
      status('Signed out: open the URL with ?token= that satchel printed at start-up.', true);
      return;
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    render(await response.json());
    status(`Updated ${new Date().toLocaleTimeString()}`, false);
  } catch (error) {
    status(`Could not refresh (${error.message}); retrying…`, true);
  }
  schedule();
}

function schedule() {
  clearTimeout(timer);
  if (!document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}

document.addEventListener('visibilitychange', () => {
  if (document.hidden) clearTimeout(timer);
  else refresh();
});
let resizing;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => latest && renderChart(latest), 150);
});
refresh();
