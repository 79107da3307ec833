/** A pack as the first screen offers it. */
export interface WelcomePack {
  name: string;
  title: string;
  description: string;
}

/** What an empty conversation shows: the packs to choose from and what can be typed. */
export interface Welcome {
  packs: WelcomePack[];
  /**
   * The pack that answers now, when one does (the one bound, the only one installed, or
   * DEFAULT_PACK for a conversation with none bound).
   */
  active?: string;
  /** DEFAULT_PACK: what typing without choosing goes to (marked on the screen). */
  default?: string;
  commands: { command: string; description: string }[];
}

/**
 * Commands that mean nothing in the web chat's one private conversation: /topics makes
 * forum topics in a Telegram group, and /start is what the first screen itself shows.
 */
const NOT_HERE = new Set(['topics', 'start']);

/**
 * The first screen's contents from the packs and the command menu Telegram gets: each pack
 * with its title and description, the one `active` now, the default one, and the commands
 * that work here.
 */
export function welcomeOf(
  packs: readonly { name: string; displayName: string; description: string }[],
  menu: readonly { command: string; description: string }[],
  active: string | undefined,
  defaultPack?: string,
): Welcome {
  return {
    packs: packs.map((p) => ({ name: p.name, title: p.displayName, description: p.description })),
    ...(packs.some((p) => p.name === active) ? { active } : {}),
    ...(packs.some((p) => p.name === defaultPack) ? { default: defaultPack } : {}),
    commands: menu.filter((m) => !NOT_HERE.has(m.command)),
  };
}
