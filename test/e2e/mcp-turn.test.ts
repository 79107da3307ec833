/**
 * A pack's MCP servers through real turns (SPEC §13): the hub starts the fixture server on
 * the pack's first turn, the model (over the OpenAI SDK, against the fake) is offered its
 * tools as <server>__<tool>, reads results and errors, and /stop cancels a running call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clockLine, conversation, unwrapped } from '../fakes/model-requests.ts';
import { imagesOf, lastUserText, type RecordedRequest, userTexts } from '../fakes/model-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';
import { fixtureEntry } from '../support/mcp-packs.ts';

/** The fixture's \`image\` tool's picture (test/fixtures/mcp/stdio-server.mjs). */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const h = harnessPerTest();

const toolsOf = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? []) as { function: { name: string; parameters: unknown } }[];
const toolResults = (request: RecordedRequest | undefined): string[] =>
  ((request?.body.messages ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);

describe('MCP tools in a turn', () => {
  it('offers the allowed tools with their schemas, and the model reads results and errors', async () => {
    const packs = fixturePacks(
      ['beta'],
      `mcp:\n${fixtureEntry('fx', ['tools: [echo, add, image, fail]'])}\n`,
    );
    // Four server calls in one turn: the later ones run tainted; approvals are tested elsewhere.
    await h.start({ SATCHEL_PACKS: packs, TOOL_APPROVAL: 'off' });
    h.model.enqueue(
      {
        toolCalls: [
          { name: 'fx__echo', arguments: { text: 'hello there' } },
          { name: 'fx__add', arguments: { a: 'two', b: 3 } },
          { name: 'fx__fail', arguments: {} },
          { name: 'fx__image', arguments: {} },
        ],
      },
      { text: 'Done.' },
    );
    h.say('try the tools');
    await settled(h, 1);

    const [first, second] = h.model.chatRequests();
    const tools = toolsOf(first);
    expect(tools.map((t) => t.function.name)).toEqual([
      'memory',
      'db_query',
      'fx__echo',
      'fx__add',
      'fx__image',
      'fx__fail',
    ]);
    expect(tools[2]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(tools[2]!.function.parameters).not.toHaveProperty('$schema');
    // Each result, and each error, comes in its envelope.
    expect(toolResults(second)[0]).toBe(
      '<<untrusted source="mcp fx/echo">>\nhello there\n<<end untrusted>>',
    );
    const results = toolResults(second).map(unwrapped);
    expect(results[0]).toBe('hello there');
    // The server validates the arguments; its complaint is an error result.
    expect(results[1]).toMatch(/^Error: .*Invalid arguments for tool add.*expected number/);
    expect(results[2]).toBe('Error: it failed on purpose');
    expect(results[3]).toBe(
      'a red dot\n[image: image/png, 70 bytes, shown to you after the tool results]',
    );
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Done.');

    // gpt-4.1-mini takes images: the image follows the results in a user message, this turn
    // only; the history keeps the note.
    const note =
      '[The images the tools returned (fx__image: 1 image), shown to you in this turn only.]';
    expect(conversation(second!).at(-1)?.role).toBe('user');
    expect(lastUserText(second!)).toBe(note);
    expect(imagesOf(second!)).toEqual([{ mimeType: 'image/png', data: PNG_1X1 }]);
    expect(imagesOf(first!)).toEqual([]);
    h.model.enqueue({ text: 'Nothing more.' });
    h.say('anything else?');
    await settled(h, 2);
    const third = h.model.chatRequests()[2]!;
    expect(userTexts(third)).toContain(note);
    expect(imagesOf(third)).toEqual([]);
  });

  it('on Gemini: the tools are function declarations, the image follows the function responses', async () => {
    const packs = fixturePacks(['beta'], `mcp:\n${fixtureEntry('fx', ['tools: [echo, image]'])}\n`);
    await h.start(({ model }) => ({
      SATCHEL_PACKS: packs,
      LLM_PROVIDER: 'gemini',
      GEMINI_BASE_URL: model.url,
      GEMINI_API_KEY: 'g-test-key-123',
      LLM_MODEL: 'gemini-2.5-flash',
    }));
    h.model.enqueue({ toolCalls: [{ name: 'fx__image', arguments: {} }] }, { text: 'A red dot.' });
    h.say('show me');
    await settled(h, 1);
    const [first, second] = h.model.chatRequests();
    const declarations = first!.body.tools.flatMap(
      (t: { functionDeclarations?: unknown[] }) => t.functionDeclarations ?? [],
    );
    expect(declarations.map((d: { name: string }) => d.name)).toEqual([
      'memory',
      'db_query',
      'fx__echo',
      'fx__image',
    ]);
    expect(JSON.stringify(declarations)).not.toContain('$schema');
    const last = second!.body.contents.at(-1);
    expect(last.role).toBe('user');
    // Gemini has no system role after the conversation: the clock line is its last text.
    expect(last.parts.map((p: object) => Object.keys(p)[0])).toEqual([
      'functionResponse',
      'text',
      'inlineData',
      'text',
    ]);
    expect(last.parts.at(-1).text).toBe(clockLine(second!));
    expect(clockLine(second!)).toMatch(
      /^\[Now: \d{4}-\d{2}-\d{2} [A-Z][a-z]+day \d{2}:\d{2} UTC\]$/,
    );
    expect(imagesOf(second!)).toEqual([{ mimeType: 'image/png', data: PNG_1X1 }]);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('A red dot.');
  });

  it('/stop cancels a running call: the server hears the cancellation', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'satchel-mcp-cancel-'));
    temps.push(dir);
    const cancelFile = path.join(dir, 'cancel');
    const packs = fixturePacks(
      ['beta'],
      `mcp:\n${fixtureEntry('fx', ['env:', `  MCP_FIXTURE_CANCEL_FILE: ${JSON.stringify(cancelFile)}`])}\n`,
    );
    await h.start({ SATCHEL_PACKS: packs });
    h.model.enqueue({ toolCalls: [{ name: 'fx__slow', arguments: {} }] });
    h.say('take your time');
    const state = () => {
      try {
        return readFileSync(cancelFile, 'utf8');
      } catch {
        return '';
      }
    };
    await vi.waitFor(() => expect(state()).toBe('started'), { timeout: 15_000, interval: 25 });
    h.say('/stop');
    await vi.waitFor(() => expect(state()).toBe('cancelled'), { timeout: 15_000, interval: 25 });
    await settled(h, 2);
    expect(h.tg.texts(ALLOWED_USER).at(-1)).toBe('Stopped.');
    expect(h.model.chatRequests()).toHaveLength(1);
  });
});
