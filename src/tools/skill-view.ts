import { z } from 'zod';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

const schema = z.object({ name: z.string() });

/** `skill_view`: a skill's full instructions (and its attached files) from the active pack. */
export function createSkillViewTool(ctx: Pick<TurnToolContext, 'pack'>) {
  return defineTool({
    name: 'skill_view',
    description: "Load one of this pack's skills: its full instructions and attached files.",
    schema,
    effect: 'read',
    async run({ name }) {
      const skill = ctx.pack.skills.find((s) => s.name === name);
      if (!skill)
        throw new ToolError(
          `no skill "${name}" in this pack; skills: ${ctx.pack.skills.map((s) => s.name).join(', ')}`,
        );
      const files = skill.files.length ? `\n\nAttached files: ${skill.files.join(', ')}` : '';
      return `# ${skill.name}\n${skill.body}${files}`;
    },
  });
}
