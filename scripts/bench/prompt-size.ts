/**
 * What every model call of a bundled pack sends before the conversation: the system prompt
 * (core rules, the pack's persona, skill index, notes as a fresh install has them) and the
 * tool schemas, as the OpenAI request carries them. Tokens are estimated at 4 characters
 * a token, as satchel estimates history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSystemPrompt } from '../../src/agent/system-prompt.ts';
import { systemClock } from '../../src/core/clock.ts';
import { loadPack } from '../../src/packs/loader.ts';
import { packPromptSections } from '../../src/packs/prompt.ts';
import { openPackStorage } from '../../src/packs/storage.ts';
import { toWireTools } from '../../src/providers/openai.ts';
import type { TurnToolContext } from '../../src/tools/context.ts';
import { createToolRunner, packTools } from '../../src/tools/registry.ts';
import { silentLog } from '../../test/support/usage-seed.ts';

const PACKS = fileURLToPath(new URL('../../packs', import.meta.url));
const BUNDLED = ['assistant', 'vocab', 'journal', 'habits'];

export const tokens = (chars: number) => Math.ceil(chars / 4);

export interface PackPrompt {
  pack: string;
  systemChars: number;
  toolsChars: number;
  /** Each tool's share: its description, and its whole wire entry (description + schema). */
  tools: { name: string; descriptionChars: number; chars: number }[];
}

export function measurePrompts(): PackPrompt[] {
  const home = mkdtempSync(path.join(tmpdir(), 'satchel-bench-prompt-'));
  try {
    return BUNDLED.map((name) => {
      const pack = loadPack(path.join(PACKS, name));
      const storage = openPackStorage(home, pack);
      try {
        // As a fresh install sends it: no web search provider (web_search is not offered,
        // and the prompt says so), web_fetch on for the packs that list it.
        const off = { search: true };
        const system = buildSystemPrompt({
          sections: packPromptSections(pack, storage, undefined, off),
        });
        // Building the tools touches none of these: they are used when a tool runs.
        const ctx = {
          pack,
          storage,
          address: { platform: 'tg', chatId: 1 },
          senderId: 1,
          clock: systemClock,
          timezone: 'UTC',
          web: { fetch: {}, search: { provider: undefined } },
        } as unknown as TurnToolContext;
        const { specs } = createToolRunner(packTools(ctx), silentLog);
        const wire = toWireTools({ system, messages: [], tools: specs }, (tool, reason) => {
          throw new Error(`${tool} would be left out of requests: ${reason}`);
        });
        return {
          pack: name,
          systemChars: system.length,
          toolsChars: JSON.stringify(wire).length,
          tools: wire.map((t) => ({
            name: t.function.name,
            descriptionChars: t.function.description.length,
            chars: JSON.stringify(t).length,
          })),
        };
      } finally {
        storage.close();
      }
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
