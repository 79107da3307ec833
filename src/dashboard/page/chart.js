// The chart: spend per day over the API's window, stacked by pack, as hand-made SVG.
import { byId, cost, el, packName, styled, svg, tokens } from './dom.js';

const PALETTE = ['#3d6df2', '#f59e0b', '#10b981', '#e5484d', '#8b5cf6', '#06b6d4', '#d946ef'];
const NO_PACK_COLOR = '#8a94a6';
const HEIGHT = 220;
const PAD = { left: 52, right: 8, top: 14, bottom: 22 };

/** Pack → color, in the order of `by_pack` (most spend first). */
function packColors(data) {
  const colors = new Map();
  data.by_pack.forEach((row, i) => {
    colors.set(packName(row.pack), row.pack === null ? NO_PACK_COLOR : PALETTE[i % PALETTE.length]);
  });
  return colors;
}

/** Every day of the window, oldest first, with its priced rows and unpriced calls. */
function chartDays(data) {
  const [y, m, d] = data.as_of_day.split('-').map(Number);
  const days = new Map();
  for (let i = data.days - 1; i >= 0; i--) {
    const day = new Date(Date.UTC(y, m - 1, d - i)).toISOString().slice(0, 10);
    days.set(day, { day, stacks: [], total: 0, unknown: 0 });
  }
  for (const row of data.by_day) {
    const day = days.get(row.day);
    if (!day) continue;
    day.unknown += row.unknown_price_calls;
    if (row.cost_usd) day.stacks.push(row);
    day.total += row.cost_usd ?? 0;
  }
  return [...days.values()];
}

/** A round step for about four grid lines up to `max`. */
function gridStep(max) {
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => s >= raw);
}

/** An axis label: as many decimals as the grid step needs, at least cents below $1. */
function axisUsd(v, step) {
  const decimals = Math.min(6, Math.max(step < 1 ? 2 : 0, -Math.floor(Math.log10(step))));
  return `$${v.toFixed(decimals)}`;
}

function grid(chart, scale) {
  for (let v = 0; v <= scale.top + scale.step / 2; v += scale.step) {
    const y = scale.y(v);
    chart.append(
      svg('line', { class: 'grid', x1: PAD.left, x2: scale.width - PAD.right, y1: y, y2: y }),
    );
    chart.append(
      svg('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end' }, axisUsd(v, scale.step)),
    );
  }
}

/** One day's stacked bar, its "?" when some calls had no price, and its date label. */
function bar(chart, day, i, scale, colors, labelled) {
  const x = PAD.left + i * scale.slot + scale.slot * 0.15;
  const middle = x + scale.slot * 0.35;
  let base = 0;
  for (const row of day.stacks) {
    const rect = svg('rect', {
      x,
      y: scale.y(base + row.cost_usd),
      width: scale.slot * 0.7,
      height: Math.max(0.5, scale.y(base) - scale.y(base + row.cost_usd)),
      fill: colors.get(packName(row.pack)) ?? NO_PACK_COLOR,
    });
    rect.append(
      svg(
        'title',
        {},
        `${day.day} · ${packName(row.pack)}: ${cost(row)}, ${tokens(row.calls)} calls`,
      ),
    );
    chart.append(rect);
    base += row.cost_usd;
  }
  if (day.unknown > 0) {
    const attrs = {
      class: 'unknown-mark',
      x: middle,
      y: scale.y(base) - 3,
      'text-anchor': 'middle',
    };
    const mark = svg('text', attrs, '?');
    mark.append(svg('title', {}, `${day.day}: ${day.unknown} call(s) at unknown price`));
    chart.append(mark);
  }
  if (labelled)
    chart.append(
      svg('text', { x: middle, y: HEIGHT - 6, 'text-anchor': 'middle' }, day.day.slice(5)),
    );
}

/**
 * Moves a label that sticks out of the chart back inside it: the last date is centred under
 * a bar a few pixels from the edge on a phone, and a long amount on the axis can pass the
 * left edge. Measured once drawn, so any font fits (nothing to measure while hidden).
 */
function keepLabelsInside(chart, width) {
  for (const label of chart.querySelectorAll('text')) {
    const box = label.getBBox();
    const shift = box.x < 0 ? -box.x : Math.min(0, width - (box.x + box.width));
    if (shift) label.setAttribute('x', Number(label.getAttribute('x')) + shift);
  }
}

export function renderChart(data) {
  const box = byId('chart');
  const width = Math.max(280, box.clientWidth || 600);
  const days = chartDays(data);
  const colors = packColors(data);
  const max = Math.max(0, ...days.map((d) => d.total));
  const step = max > 0 ? gridStep(max) : 1;
  const top = max > 0 ? Math.ceil(max / step) * step : 1;
  const plot = HEIGHT - PAD.top - PAD.bottom;
  const scale = {
    width,
    step,
    top,
    slot: (width - PAD.left - PAD.right) / days.length,
    y: (v) => PAD.top + plot - (v / top) * plot,
  };
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: 'img',
    'aria-label': 'Spend per day, stacked by pack',
  });
  grid(chart, scale);
  const every = Math.ceil(days.length / Math.max(2, Math.floor(width / 70)));
  days.forEach((day, i) => {
    bar(chart, day, i, scale, colors, (days.length - 1 - i) % every === 0);
  });
  if (max === 0) {
    const attrs = { class: 'empty', x: width / 2, y: HEIGHT / 2, 'text-anchor': 'middle' };
    chart.append(svg('text', attrs, `No priced spend in the last ${data.days} days`));
  }
  box.replaceChildren(chart);
  keepLabelsInside(chart, width);
  byId('legend').replaceChildren(
    ...[...colors].map(([name, color]) =>
      el('span', {}, styled('i', {}, { background: color }), name),
    ),
  );
}
