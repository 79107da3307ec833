import type { Pack, Skill } from './loader.ts';
import type { PackStorage } from './storage.ts';

/**
 * The system-prompt sections of the active pack, and only of it: persona, skill index,
 * USER.md and MEMORY.md, and the body of a pinned skill. Skill bodies are otherwise loaded
 * on demand with `skill_view`.
 */
export function packPromptSections(pack: Pack, storage: PackStorage, pinned?: Skill): string[] {
  const sections = [`# Active pack: ${pack.displayName}\n${pack.description}`];
  if (pack.soul?.trim()) sections.push(`# Persona and rules\n${pack.soul.trim()}`);
  const index = pack.skills.map(
    (s) => `- ${s.name}${s.command ? ` (/${s.commandName})` : ''}: ${s.description}`,
  );
  sections.push(
    `# Skills\nLoad a skill's instructions with skill_view before you follow it.\n${index.join('\n')}`,
  );
  sections.push(`# USER.md\n${storage.readNote('USER.md').trim()}`);
  sections.push(`# MEMORY.md\n${storage.readNote('MEMORY.md').trim()}`);
  if (pinned) sections.push(`# Skill for this turn: ${pinned.name}\n${pinned.body}`);
  return sections;
}
