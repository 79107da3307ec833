import { z } from 'zod';
import { changed } from '../core/changes.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

/** Notes larger than this are refused: they would crowd out the conversation in every prompt. */
const MAX_NOTE_CHARS = 20_000;

const schema = z.object({
  action: z.enum(['read', 'append', 'replace']),
  file: z.enum(['USER.md', 'MEMORY.md']),
  text: z.string().optional(),
});

/** `memory`: read, append to or replace the active pack's USER.md / MEMORY.md. */
export function createMemoryTool(ctx: Pick<TurnToolContext, 'storage'>) {
  return defineTool({
    name: 'memory',
    description:
      "Read, append to or replace this pack's notes: USER.md (who the user is) or MEMORY.md (what you know). Both are already in your instructions; write when you learn something worth keeping.",
    schema,
    effect: ({ action }) => (action === 'read' ? 'read' : 'write'),
    async run({ action, file, text }) {
      const current = ctx.storage.readNote(file);
      if (action === 'read') return current;
      if (!text?.trim()) throw new ToolError(`"text" is required to ${action} ${file}`);
      const next =
        action === 'append' ? `${current.trimEnd()}\n${text.trim()}\n` : `${text.trim()}\n`;
      if (next.length > MAX_NOTE_CHARS)
        throw new ToolError(
          `${file} would be ${next.length} characters (limit ${MAX_NOTE_CHARS}); condense it with "replace"`,
        );
      ctx.storage.writeNote(file, next);
      return changed(
        `${file} ${action === 'append' ? 'appended' : 'replaced'} (${next.length} characters).`,
        { kind: 'memory', file },
      );
    },
  });
}
