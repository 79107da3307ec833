import type { Pack, Skill } from './loader.ts';
import type { PackStorage } from './storage.ts';

/** An HTML comment, with the spaces before it: in a note, a hint for the person editing it. */
const COMMENT = /[ \t]*<!--[\s\S]*?-->/g;

/**
 * A note as the model reads it: without HTML comments (the templates' "<!-- how to address
 * the user -->" hints, about a hundred tokens a pack), which Markdown does not show either.
 */
function withoutComments(note: string): string {
  return note
    .replace(COMMENT, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A pinned skill's instructions, as the model reads them. */
export function pinnedSkillText(skill: Skill): string {
  return `# Skill for this turn: ${skill.name}\n${skill.body}`;
}

/**
 * Said once where a pack enables web_search and no provider is set up (the tool is not
 * offered then, SPEC §13), so the model tells the person what research needs.
 */
export const SEARCH_OFF =
  '# Web search is off\nNo web search provider is set up, so you cannot search the web. ' +
  'When asked to look something up, say so: research needs a search provider, which the ' +
  'owner sets in .env (WEB_SEARCH_PROVIDER=brave with BRAVE_API_KEY, tavily with ' +
  'TAVILY_API_KEY, or searxng with SEARXNG_URL), then restarts satchel.';

/** Added to SEARCH_OFF for a pack that reads pages. */
const FETCH_STILL = ' A link the person sends can still be read (web_fetch).';

/**
 * The system-prompt sections of the active pack, and only of it: persona, skill index,
 * USER.md and MEMORY.md, and the body of a pinned skill (a job's: every run of a job pins
 * the same one, so its prompt stays the same; a skill command's goes with the user's
 * message instead, see turn/inputs.ts). Skill bodies are otherwise loaded on demand with
 * `skill_view`. `off.search`: no web search provider (the section SEARCH_OFF).
 */
export function packPromptSections(
  pack: Pack,
  storage: PackStorage,
  pinned?: Skill,
  off: { search?: boolean } = {},
): string[] {
  const sections = [`# Active pack: ${pack.displayName}\n${pack.description}`];
  if (pack.soul?.trim()) sections.push(`# Persona and rules\n${pack.soul.trim()}`);
  const { tools } = pack.manifest;
  if (off.search && tools.includes('web_search'))
    sections.push(SEARCH_OFF + (tools.includes('web_fetch') ? FETCH_STILL : ''));
  const index = pack.skills.map(
    (s) => `- ${s.name}${s.command ? ` (/${s.commandName})` : ''}: ${s.description}`,
  );
  sections.push(
    `# Skills\nLoad a skill's instructions with skill_view before you follow it.\n${index.join('\n')}`,
  );
  sections.push(`# USER.md\n${withoutComments(storage.readNote('USER.md'))}`);
  sections.push(`# MEMORY.md\n${withoutComments(storage.readNote('MEMORY.md'))}`);
  if (pinned) sections.push(pinnedSkillText(pinned));
  return sections;
}
