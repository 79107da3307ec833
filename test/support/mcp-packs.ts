import { fileURLToPath } from 'node:url';

/** The stdio MCP fixture server (test/fixtures/mcp/stdio-server.mjs, its tools listed there). */
export const STDIO_FIXTURE = fileURLToPath(
  new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url),
);

/** An `mcp:` list item of pack.yml that runs the stdio fixture as `name`, `more` lines in it. */
export function fixtureEntry(name: string, more: string[] = []): string {
  return [
    `  - name: ${name}`,
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(STDIO_FIXTURE)}]`,
    ...more.map((line) => `    ${line}`),
  ].join('\n');
}

/** `settings:` of a pack with one optional secret, `token`: what needs it waits until it is set. */
export const OPTIONAL_TOKEN_SETTING = `settings:
  - name: token
    description: The token.
    secret: true
`;

/** `settings:` of a pack with one required secret, `token` (SATCHEL_PACK_<PACK>_TOKEN). */
export const SECRET_TOKEN_SETTING = `settings:
  - name: token
    description: The service token.
    secret: true
    required: true
`;
