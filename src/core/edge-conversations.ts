/**
 * The conversations an edge makes itself (the web chat's: SPEC §16), kept by the store in
 * `web_conversations`. Each is one address of the edge, `{platform, chatId: id}`; the core
 * routes it like any chat and never reads this list.
 */
export interface EdgeConversation {
  id: string;
  title: string;
  /** The owner named it: the first line typed no longer does. */
  titled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface EdgeConversations {
  /** Every conversation, the most recently used first. */
  list(): EdgeConversation[];
  get(id: string): EdgeConversation | undefined;
  create(conversation: EdgeConversation): void;
  /** Sets its title (and whether the owner chose it); false when there is no such one. */
  rename(id: string, title: string, titled: boolean): boolean;
  /** It was used at `now`: it moves to the top of the list. */
  touch(id: string, now: number): void;
}
