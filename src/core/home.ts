/**
 * Whose data a conversation uses in a pack (SPEC §19): the owner's home
 * (`SATCHEL_HOME/packs/<name>/`), a person's (`…/people/<person>/`) or a group's
 * (`…/groups/<group>/`). A person's id and a group's name are opaque strings: they are
 * encoded into one folder name here and never read.
 */
export type Home =
  | { kind: 'owner' }
  | { kind: 'person'; person: string }
  | { kind: 'group'; group: string };

export const OWNER_HOME: Home = { kind: 'owner' };

/** One string per home (`owner`, `person:<id>`, `group:<name>`): grants and caches key by it. */
export function homeKey(home: Home): string {
  if (home.kind === 'owner') return 'owner';
  return home.kind === 'person' ? `person:${home.person}` : `group:${home.group}`;
}

/** The home `homeKey` made. */
export function homeOfKey(key: string): Home {
  if (key.startsWith('person:')) return { kind: 'person', person: key.slice('person:'.length) };
  if (key.startsWith('group:')) return { kind: 'group', group: key.slice('group:'.length) };
  return OWNER_HOME;
}

/** The home's folders under the pack's own folder: none for the owner's. */
export function homeFolders(home: Home): string[] {
  if (home.kind === 'owner') return [];
  return home.kind === 'person'
    ? ['people', folderName(home.person)]
    : ['groups', folderName(home.group)];
}

/** The folder's name back to its id (`folderName`'s inverse), for a listing of homes. */
export function idOfFolder(name: string): string {
  return decodeURIComponent(name);
}

/**
 * An id as one safe folder name: every character but letters, digits, `-` and `_` is
 * percent-encoded (dots too, so no id can be `.` or `..`), so two ids never share a folder.
 */
export function folderName(id: string): string {
  return encodeURIComponent(id).replace(
    /[.!~*'()]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** How the owner is told which home: "the owner's", "Sam's (person 4242)", "group g-…". */
export function homeLabel(home: Home): string {
  if (home.kind === 'owner') return "the owner's home";
  return home.kind === 'person'
    ? `the home of person ${home.person}`
    : `the home of group ${home.group}`;
}
