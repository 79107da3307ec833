/**
 * Prompt-cache benchmark (not a test): over a 20-turn conversation with turns minutes
 * apart, the share of each model request that repeats the previous request as its prefix —
 * what a provider's prompt cache (OpenAI, Gemini and Groq cache prefixes) can serve at the
 * cached price. Measured twice: on the request body as sent, and on the prompt as a
 * provider lays it out (tools, then the messages). Target: every request ≥ 95 % (SPEC §14).
 * See docs/PERFORMANCE.md.
 *
 *   npx tsx scripts/bench-prompt-cache.ts     (part of: npm run bench)
 */
import { measurePromptCache } from './bench/prompt-cache.ts';
import { table } from './bench/stats.ts';

const TARGET = 0.95;
const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const min = (xs: number[]) => Math.min(...xs);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

const result = await measurePromptCache();
const { shares } = result;

console.log(
  `Prompt cache: ${result.turns} turns, ${result.requests} chat requests (journal pack, turns 2–15 min apart)`,
);
console.log(
  table(
    ['turn', 'request vs the one before', 'body', 'tools + messages', 'body chars'],
    shares.map((s) => [
      String(s.turn),
      s.firstOfTurn ? 'first of the turn' : 'after a tool call',
      pct(s.share),
      pct(s.promptShare),
      String(s.chars),
    ]),
  ),
);

const rows: [string, number[]][] = [
  [
    'request body, first request of a turn',
    shares.filter((s) => s.firstOfTurn).map((s) => s.share),
  ],
  ['request body, after a tool call', shares.filter((s) => !s.firstOfTurn).map((s) => s.share)],
  ['request body, all requests', shares.map((s) => s.share)],
  ['tools + messages, all requests', shares.map((s) => s.promptShare)],
];
console.log();
for (const [what, xs] of rows) console.log(`${what}: min ${pct(min(xs))}, mean ${pct(mean(xs))}`);
const worst = min([...shares.map((s) => s.share), ...shares.map((s) => s.promptShare)]);
const ok = worst >= TARGET ? 'ok' : 'MISS';
console.log(`target: ≥ ${pct(TARGET)} for every request: ${ok}`);
console.log(`the last turn as the model got it: ${JSON.stringify(result.lastRequestUserText)}`);
console.log(`and the clock line after it: ${JSON.stringify(result.lastRequestClock)}`);
const all = shares.map((s) => s.share);
const prompt = shares.map((s) => s.promptShare);
console.log(
  `\n| prompt cache: previous request repeated as prefix, 20 turns minutes apart (min / mean; body, tools + messages) | ` +
    `${pct(min(all))} / ${pct(mean(all))}; ${pct(min(prompt))} / ${pct(mean(prompt))} | ≥ 95 % each | ${ok} |`,
);
if (ok !== 'ok') process.exitCode = 1;
