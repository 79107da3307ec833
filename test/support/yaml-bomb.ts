/**
 * 342 bytes whose aliases expand to 9^9 strings: the "billion laughs" of YAML. Its 72
 * aliases are within the count; the expansion is what is refused.
 */
export const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'
    .split('')
    .map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  '',
].join('\n');
