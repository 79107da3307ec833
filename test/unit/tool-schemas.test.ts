import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import type { ChatModel, ToolSpec } from '../../src/core/ports.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createChatModel } from '../../src/providers/index.ts';
import type { Provider } from '../../src/providers/registry.ts';
import { MAX_SCHEMA_PARTS } from '../../src/providers/tool-schemas.ts';
import { bundledCatalog } from '../../src/usage/catalog.ts';
import { useFakeModel } from '../support/fake-model.ts';

// Tool schemas as MCP servers send them, through each provider's real SDK to the fake
// server, which refuses what the real APIs refuse (test/fakes/model-strict.ts).

const fake = useFakeModel();

// biome-ignore lint/suspicious/noExplicitAny: provider JSON from the fake's recorded bodies
type Json = any;

const MODELS: Record<Provider, string> = {
  openai: 'gpt-test',
  groq: 'llama-test',
  gemini: 'gemini-test',
};

/** A chat model on `provider`, made as the app makes it, and the log lines it writes. */
function modelOn(provider: Provider): { model: ChatModel; logs: () => Json[] } {
  const lines: string[] = [];
  const log = createLogger({
    level: 'info',
    secrets: [],
    destination: { write: (line: string) => void lines.push(line) },
  });
  const config = parseConfig({
    TELEGRAM_BOT_TOKEN: '123456:ABC-def_ghi',
    LLM_PROVIDER: provider,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${fake.url}/v1`,
    GROQ_API_KEY: 'gsk-test',
    GROQ_BASE_URL: fake.url,
    GEMINI_API_KEY: 'gm-test',
    GEMINI_BASE_URL: fake.url,
  });
  const model = createChatModel(config, bundledCatalog(), provider, MODELS[provider], log);
  return { model, logs: () => lines.map((line) => JSON.parse(line)) };
}

/** Asks with `tools`; the answer text (the fake echoes), or the provider's refusal. */
async function ask(model: ChatModel, tools: ToolSpec[]): Promise<string> {
  const request = { system: 'be brief', messages: [{ role: 'user' as const, content: 'hi' }] };
  const signal = new AbortController().signal;
  const answer = await model.complete({ ...request, tools }, { signal });
  return answer.text;
}

/** The tools of the last request, as name → schema, whatever the provider's format. */
function sentTools(): Record<string, Json> | undefined {
  const body = fake.chatRequests().at(-1)?.body;
  if (body.tools === undefined) return undefined;
  if (body.contents) {
    expect(body.tools).toHaveLength(1);
    return Object.fromEntries(
      body.tools[0].functionDeclarations.map((d: Json) => [d.name, d.parametersJsonSchema]),
    );
  }
  return Object.fromEntries(body.tools.map((t: Json) => [t.function.name, t.function.parameters]));
}

const tool = (name: string, parameters: Record<string, unknown>): ToolSpec => ({
  name,
  description: `${name} tool`,
  parameters,
});

/** What an MCP server's SDK writes: a draft URI, shared definitions, refs with descriptions. */
const issueSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    repo: { $ref: '#/$defs/Repo', description: 'Which repository' },
    labels: { type: 'array', items: { $ref: '#/$defs/Label' } },
    definitions: { type: 'string', description: 'a parameter that happens to have this name' },
    kind: { $ref: '#/definitions/Kind', default: 'task' },
  },
  required: ['repo'],
  additionalProperties: false,
  $defs: {
    Repo: {
      type: 'object',
      properties: { owner: { type: 'string' }, default_label: { $ref: '#/$defs/Label' } },
      required: ['owner'],
    },
    Label: { type: 'string', enum: ['bug', 'feature'] },
  },
  definitions: {
    Kind: { type: 'string', $schema: 'https://json-schema.org/draft/2020-12/schema' },
  },
};

const label = { type: 'string', enum: ['bug', 'feature'] };
/** issueSchema as Gemini gets it. */
const issueForGemini = {
  type: 'object',
  properties: {
    repo: {
      type: 'object',
      properties: { owner: { type: 'string' }, default_label: label },
      required: ['owner'],
      description: 'Which repository',
    },
    labels: { type: 'array', items: label },
    definitions: { type: 'string', description: 'a parameter that happens to have this name' },
    kind: { type: 'string', default: 'task' },
  },
  required: ['repo'],
  additionalProperties: false,
};

/** A tree whose nodes hold nodes: no finite inlining. */
const treeSchema = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/Node' } },
  $defs: {
    Node: {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
    },
  },
};

/** Each level refers to the one below twice: 2^13 parts once inlined. */
function refBomb(levels = 13): Record<string, unknown> {
  const $defs: Record<string, unknown> = { L0: { type: 'string' } };
  for (let i = 1; i <= levels; i++) {
    const below = { $ref: `#/$defs/L${i - 1}` };
    $defs[`L${i}`] = { type: 'object', properties: { a: below, b: below } };
  }
  return { type: 'object', properties: { top: { $ref: `#/$defs/L${levels}` } }, $defs };
}

describe('Gemini gets tool schemas it accepts', () => {
  it('an MCP schema with $schema, $defs and $refs arrives inlined and is accepted', async () => {
    const { model, logs } = modelOn('gemini');
    expect(await ask(model, [tool('gh__create_issue', issueSchema)])).toBe('echo: hi');
    expect(sentTools()).toEqual({ gh__create_issue: issueForGemini });
    expect(logs().filter((l) => l.event === 'tool_schema_refused')).toEqual([]);
  });

  it('a recursive schema is left out with one warning, and the other tools go', async () => {
    const { model, logs } = modelOn('gemini');
    const tools = [tool('gh__create_issue', issueSchema), tool('fs__tree', treeSchema)];
    expect(await ask(model, tools)).toBe('echo: hi');
    expect(await ask(model, tools)).toBe('echo: hi');

    expect(Object.keys(sentTools() ?? {})).toEqual(['gh__create_issue']);
    const warnings = logs().filter((l) => l.event === 'tool_schema_refused');
    // Once, not on every call.
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        provider: 'gemini',
        model: 'gemini-test',
        tool: 'fs__tree',
        reason: 'its schema is recursive ($ref "#/$defs/Node")',
      }),
    ]);
  });

  it.each([
    [
      'a $ref to nothing',
      { type: 'object', properties: { a: { $ref: '#/$defs/Gone' } } },
      'its $ref "#/$defs/Gone" points to nothing',
    ],
    [
      'a $ref to another document',
      { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
      'is not a reference inside the schema',
    ],
    [
      'a $ref to the root',
      { type: 'object', properties: { again: { $ref: '#' } } },
      'recursive ($ref "#")',
    ],
    [
      'a schema that explodes when inlined',
      refBomb(),
      `more than ${MAX_SCHEMA_PARTS} parts once its $refs are inlined`,
    ],
    ['a schema that is not a JSON object', 'anything' as never, 'its schema is not a JSON object'],
    [
      'a root that is not an object',
      { type: 'array', items: { type: 'string' } },
      'describes "array", not an arguments object',
    ],
  ])(
    '%s: the tool is left out, named in the warning with the reason',
    async (_what, schema, reason) => {
      const { model, logs } = modelOn('gemini');
      const tools = [tool('odd__tool', schema), tool('plain', { type: 'object', properties: {} })];
      expect(await ask(model, tools)).toBe('echo: hi');
      expect(Object.keys(sentTools() ?? {})).toEqual(['plain']);
      const [warning] = logs().filter((l) => l.event === 'tool_schema_refused');
      expect(warning).toMatchObject({ tool: 'odd__tool', reason: expect.stringContaining(reason) });
      expect(warning.msg).toContain('odd__tool');
    },
  );
});

describe.each(['openai', 'groq'] as const)('%s gets tool schemas it accepts', (provider) => {
  it('the MCP schemas go with $schema removed and their $refs kept', async () => {
    const { model, logs } = modelOn(provider);
    const tools = [tool('gh__create_issue', issueSchema), tool('fs__tree', treeSchema)];
    expect(await ask(model, tools)).toBe('echo: hi');

    const { $schema: _, ...issueWithRefs } = issueSchema;
    const { $schema: __, ...kind } = issueSchema.definitions.Kind;
    expect(sentTools()).toEqual({
      gh__create_issue: { ...issueWithRefs, definitions: { Kind: kind } },
      fs__tree: treeSchema,
    });
    expect(logs().filter((l) => l.event === 'tool_schema_refused')).toEqual([]);
  });
});

describe.each(['openai', 'groq', 'gemini'] as const)('%s, every tool left out', (provider) => {
  it('the request carries no tool list at all, and is answered', async () => {
    const { model, logs } = modelOn(provider);
    const tools = [
      tool('list', { type: 'array' }),
      tool('fs.read', { type: 'object', properties: {} }),
    ];
    expect(await ask(model, tools)).toBe('echo: hi');
    expect(fake.chatRequests().at(-1)?.body).not.toHaveProperty('tools');
    const warnings = logs().filter((l) => l.event === 'tool_schema_refused');
    expect(warnings.map((w) => [w.tool, w.reason])).toEqual([
      ['list', 'its schema describes "array", not an arguments object'],
      ['fs.read', expect.stringContaining('its name does not fit the providers')],
    ]);
  });
});
