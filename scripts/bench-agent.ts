/**
 * Agent loop benchmark (not a test): the real ReAct loop — history, quota gate, ledger,
 * tool runner, SQLite — with an instant in-process model, so what is measured is satchel's
 * own overhead per model call.
 *
 *   npx tsx scripts/bench-agent.ts     (part of: npm run bench)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createAgent, type TurnInput } from '../src/agent/agent.ts';
import { systemClock } from '../src/core/clock.ts';
import type { ChatModel, ChatRequest } from '../src/core/ports.ts';
import { createLogger } from '../src/logging/logger.ts';
import { openCoreStore } from '../src/store/client.ts';
import { createSessionRepo } from '../src/store/session-repo.ts';
import { createToolRunner } from '../src/tools/registry.ts';
import { defineTool } from '../src/tools/tool.ts';
import { createCalendar } from '../src/usage/calendar.ts';
import { bundledCatalog } from '../src/usage/catalog.ts';
import { createLedger } from '../src/usage/ledger.ts';
import { createQuotaGate } from '../src/usage/quota.ts';
import { createTotals } from '../src/usage/totals.ts';

/** Answers at once: `toolRounds` tool calls first, then text. */
function instantModel(toolRounds: number): ChatModel & { calls: number } {
  const model = {
    calls: 0,
    info: { provider: 'openai', model: 'gpt-4.1-mini', acceptsImages: false },
    async complete(request: ChatRequest) {
      model.calls++;
      const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
      const toolsThisTurn = request.messages
        .slice(lastUser)
        .filter((m) => m.role === 'tool').length;
      const wantTool = toolsThisTurn < toolRounds;
      const usage = { inputTokens: 500, cachedInputTokens: 0, outputTokens: 40 };
      return wantTool
        ? {
            text: '',
            toolCalls: [{ id: `c${model.calls}`, name: 'memory', arguments: '{"n":1}' }],
            usage,
          }
        : { text: 'Done.', toolCalls: [], usage };
    },
  };
  return model;
}

async function run(label: string, turns: number, toolRounds: number) {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-agent-'));
  const store = openCoreStore(home);
  const log = createLogger({ level: 'silent', secrets: [] });
  const sessions = createSessionRepo(store.db);
  const calendar = createCalendar('UTC');
  const model = instantModel(toolRounds);
  const agent = createAgent({
    model,
    sessions,
    ledger: createLedger({ db: store.db, clock: systemClock, calendar, catalog: bundledCatalog() }),
    quota: createQuotaGate({
      caps: { dailyTokens: 0, sessionTokens: 0, dailyUsd: 0 },
      totals: createTotals(store.db),
      calendar,
      clock: systemClock,
      log,
      catalog: bundledCatalog(),
    }),
    clock: systemClock,
    log,
    timezone: 'UTC',
  });
  const tools = createToolRunner(
    [
      defineTool({
        name: 'memory',
        description: 'noop',
        schema: z.object({ n: z.number() }),
        effect: 'read',
        run: async () => 'ok',
      }),
    ],
    log,
  );
  const address = { platform: 'tg' as const, chatId: '1' };
  const started = performance.now();
  for (let i = 0; i < turns; i++) {
    // A fresh session every 20 turns keeps history realistic rather than ever-growing.
    const session = sessions.createSession(
      { key: `tg:1:bench:${Math.floor(i / 20)}`, pack: 'bench', address },
      Date.now(),
    );
    const input: TurnInput = {
      session,
      turnId: `t${i}`,
      pack: 'bench',
      chatId: '1',
      threadId: undefined,
      system: 'You are a benchmark.',
      inputs: [{ content: `question ${i}`, sourceKey: `bench:${i}` }],
      signal: new AbortController().signal,
      tools,
    };
    const { answer } = await agent.run(input);
    store.db.transaction(() => agent.storeAnswer(input, answer));
  }
  const ms = performance.now() - started;
  store.close();
  rmSync(home, { recursive: true, force: true });
  return { label, turns, calls: model.calls, ms, perCall: ms / model.calls };
}

const results = [
  await run('1 call per turn', 2000, 0),
  await run('3 calls per turn (2 tool rounds)', 700, 2),
];
console.log('\nAgent loop overhead (instant in-process model; SQLite on local disk)\n');
console.log('run                               turns  model calls  wall ms   ms per call');
for (const r of results)
  console.log(
    `${r.label.padEnd(33)} ${String(r.turns).padStart(5)}  ${String(r.calls).padStart(11)}  ${r.ms.toFixed(0).padStart(7)}  ${r.perCall.toFixed(3).padStart(11)}`,
  );
console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
