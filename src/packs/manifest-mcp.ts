// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${settings.NAME} is pack.yml syntax, not a template
import { z } from 'zod';
import { didYouMean } from './suggest.ts';

/** `${settings.NAME}` in an `env` or `headers` value (SPEC §13, §15). */
export const SETTING_REFERENCE = /\$\{settings\.([A-Za-z][A-Za-z0-9_-]*)\}/g;

/**
 * An env var or header whose name says it carries a credential: its value must come from a
 * setting, so the secret lives in the operator's environment, not in a shared pack.yml.
 */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS(WORD|WD)?|AUTH|CREDENTIAL|COOKIE|PRIVATE|SESSION/i;

/** A server's `name`: the `<name>` of `<name>__<tool>`, so short and provider-safe. */
const serverName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*$/, 'must match [a-z][a-z0-9_-]* (it names the tools: <name>__<tool>)')
  .max(24, 'must be at most 24 characters (it is the start of every tool name)')
  .refine((name) => !name.includes('__') && !name.endsWith('_'), {
    message: 'must not contain "__" or end with "_" (the tools are named <name>__<tool>)',
  });

const values = (what: string) =>
  z
    .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, `must be a valid ${what} name`), z.string())
    .optional();

/** One `mcp:` entry: a stdio server (`command`) or a streamable HTTP one (`url`). */
export const mcpServerSchema = z
  .object({
    name: serverName.describe(
      'Unique within the pack; the model sees its tools as <name>__<tool>. [a-z][a-z0-9_-]*, at most 24 characters.',
    ),
    command: z
      .string()
      .min(1)
      .optional()
      .describe(
        'stdio: the program to start (a path relative to the pack folder, or a command on PATH).',
      ),
    args: z
      .array(z.string())
      .optional()
      .describe('stdio: its arguments; a relative path is read from the pack folder.'),
    env: values('environment variable').describe(
      'stdio: variables added to a minimal environment. A value may contain ${settings.NAME}; a secret (a name with KEY, TOKEN, SECRET, PASSWORD, AUTH…) must come from a setting.',
    ),
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .optional()
      .describe('streamable HTTP: the server URL.'),
    headers: values('header').describe(
      'streamable HTTP: headers sent with every request. A value may contain ${settings.NAME}; a secret (Authorization, X-Api-Key…) must come from a setting.',
    ),
    tools: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("The server's tools the model may use (default: all of them)."),
    timeout_ms: z
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(30_000)
      .describe('A start or one call longer than this fails (milliseconds, default 30000).'),
    max_output_chars: z
      .number()
      .int()
      .min(100)
      .max(1_000_000)
      .default(20_000)
      .describe(
        'A result longer than this (characters) is an error the model sees (default 20000).',
      ),
  })
  .strict()
  .describe('An MCP server: {name, command, args?, env?} (stdio) or {name, url, headers?} (HTTP).');

export type McpServerEntry = z.infer<typeof mcpServerSchema>;

type Ctx = z.core.$RefinementCtx;

/**
 * The checks that need the whole manifest: one transport per entry, unique names, every
 * `${settings.NAME}` declared, no literal secret.
 */
export function checkMcpEntries(
  entries: readonly McpServerEntry[],
  settings: readonly { name: string; secret: boolean }[],
  ctx: Ctx,
): void {
  const names = entries.map((e) => e.name);
  entries.forEach((entry, i) => {
    if (names.indexOf(entry.name) !== i)
      ctx.addIssue({
        code: 'custom',
        path: ['mcp', i, 'name'],
        message: `duplicate server "${entry.name}"`,
      });
    checkTransport(entry, i, ctx);
    for (const field of ['env', 'headers'] as const)
      for (const [key, value] of Object.entries(entry[field] ?? {}))
        checkValue(key, value, settings, ['mcp', i, field, key], ctx);
  });
}

function checkTransport(entry: McpServerEntry, i: number, ctx: Ctx): void {
  const stdio = entry.command !== undefined;
  const http = entry.url !== undefined;
  if (stdio === http) {
    ctx.addIssue({
      code: 'custom',
      path: ['mcp', i],
      message: stdio
        ? 'has both `command` and `url`: a server is either stdio (command) or HTTP (url)'
        : 'needs `command` (a stdio server) or `url` (a streamable HTTP server)',
    });
    return;
  }
  const wrong = stdio ? (['headers'] as const) : (['args', 'env'] as const);
  for (const key of wrong)
    if (entry[key] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['mcp', i, key],
        message: stdio
          ? '`headers` is for an HTTP server (url); a stdio server takes `env`'
          : `\`${key}\` is for a stdio server (command); an HTTP server takes \`headers\``,
      });
}

function checkValue(
  key: string,
  value: string,
  settings: readonly { name: string; secret: boolean }[],
  path: (string | number)[],
  ctx: Ctx,
): void {
  const declared = new Map(settings.map((s) => [s.name, s]));
  const refs = [...value.matchAll(SETTING_REFERENCE)].map((m) => m[1]!);
  const stray = value.replace(SETTING_REFERENCE, '').includes('${');
  if (stray)
    ctx.addIssue({
      code: 'custom',
      path,
      message: 'a "${" here must be a setting reference: ${settings.NAME}',
    });
  for (const name of refs) {
    const setting = declared.get(name);
    if (!setting)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `\${settings.${name}}: no setting "${name}" is declared in \`settings\`${didYouMean(name, [...declared.keys()])}`,
      });
    else if (SECRET_NAME.test(key) && !setting.secret)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `"${key}" carries a secret: declare the setting "${name}" with \`secret: true\` so it is kept out of logs, the model and backups`,
      });
  }
  if (refs.length === 0 && !stray && SECRET_NAME.test(key) && value !== '')
    ctx.addIssue({
      code: 'custom',
      path,
      message: `"${key}" looks like a secret: never write it in pack.yml; declare a setting (\`settings:\` with \`secret: true\`) and use \${settings.NAME}`,
    });
}
