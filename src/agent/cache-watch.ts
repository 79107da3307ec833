import type { ChatRequest, Logger, ToolSpec } from '../core/ports.ts';
import type { ChatMessage } from '../core/types.ts';

/** Below this share of the previous request repeated as its prefix, a request is a break. */
export const CACHE_BREAK_SHARE = 0.9;
/** The conversations remembered; the oldest is forgotten past it. */
const REMEMBERED = 500;

/** Where the previous request and this one first differ. */
export type CacheBreakPart = 'tools' | 'system' | 'messages';

/**
 * One request of a conversation, as much of it as the comparison needs: a hash and a size
 * per tool and per message (a message's images are left out: they go with their own turn
 * only, by design), and the system prompt itself (for the character it first differs at).
 */
interface Shape {
  tools: Part[];
  system: string;
  messages: Part[];
  /** What may change the prompt on purpose: a compaction, the pack's own prompt. */
  epoch: string;
}

interface Part {
  hash: number;
  size: number;
}

/** What may change a conversation's prompt on purpose, without a `prompt_cache_break`. */
export interface PromptEpoch {
  /** The session's summary mark (`summary_upto`): it moves when the session is compacted. */
  summaryUpto: number | null;
  /** The pack's own prompt (its sections), which changes when its notes or persona do. */
  packPrompt: string;
}

/**
 * Watches each conversation's requests for a provider-cache bust (SPEC §14): a request that
 * repeats less than 90 % of the previous request of the same session as its prefix, with
 * no compaction and no change of the pack's prompt in between, logs `prompt_cache_break`
 * naming the part that changed (`tools`, `system`, `messages`) and where (the tool's index,
 * the system prompt's character offset, the message's index). Kept in memory only, per
 * session, the last REMEMBERED sessions: a restart forgets the previous requests, and the
 * first request after it is compared with nothing.
 */
export function createCacheWatch(log: Logger) {
  const previous = new Map<string, Shape>();
  const kept = keptHashes();

  return {
    /** Compares `request` with the session's previous one, then remembers it instead. */
    observe(
      sessionId: string,
      request: ChatRequest,
      context: PromptEpoch & { pack: string; turnId: string },
    ): void {
      const shape = shapeOf(request, context, kept);
      const before = previous.get(sessionId);
      previous.delete(sessionId);
      previous.set(sessionId, shape);
      if (previous.size > REMEMBERED) previous.delete(previous.keys().next().value!);
      if (!before || before.epoch !== shape.epoch) return;
      const found = firstDifference(before, shape);
      if (!found || found.share >= CACHE_BREAK_SHARE) return;
      log.warn(
        {
          event: 'prompt_cache_break',
          sessionId,
          pack: context.pack,
          turnId: context.turnId,
          part: found.part,
          at: found.at,
          prefixShare: Math.round(found.share * 100) / 100,
        },
        `the prompt changed in ${found.part} at ${found.at}: the provider's cache serves ${Math.round(found.share * 100)} % of it`,
      );
    },
  };
}

export type CacheWatch = ReturnType<typeof createCacheWatch>;

function shapeOf(request: ChatRequest, epoch: PromptEpoch, kept: KeptHashes): Shape {
  return {
    tools: (request.tools ?? []).map(kept.tool),
    system: request.system,
    messages: request.messages.map((m) => part(messageText(m))),
    epoch: `${epoch.summaryUpto ?? ''}\n${kept.packPrompt(epoch.packPrompt)}`,
  };
}

const part = (text: string): Part => ({ hash: hash53(text), size: text.length });

type KeptHashes = ReturnType<typeof keptHashes>;

/**
 * The parts that repeat from turn to turn, hashed once. A tool's part is kept by its
 * `parameters` object: a turn's specs are new objects, but their schemas are converted once
 * (tools/registry.ts) and never changed in place, so only a new or changed tool is
 * serialized again. The pack's prompt is kept for the last one seen.
 */
function keptHashes() {
  const tools = new WeakMap<object, { name: string; description: string; part: Part }>();
  let lastPrompt: { text: string; hash: number } | undefined;
  return {
    tool(spec: ToolSpec): Part {
      const known = tools.get(spec.parameters);
      if (known?.name === spec.name && known.description === spec.description) return known.part;
      const made = part(JSON.stringify(spec));
      tools.set(spec.parameters, { name: spec.name, description: spec.description, part: made });
      return made;
    },
    packPrompt(text: string): number {
      if (lastPrompt?.text !== text) lastPrompt = { text, hash: hash53(text) };
      return lastPrompt.hash;
    },
  };
}

/**
 * A 53-bit hash of `text` (cyrb53), to tell one request's parts from the previous one's. Not
 * cryptographic: a collision only hides a change from the log. Computed in JavaScript, it
 * costs a loop over the characters and no native call per message (a SHA-1 per message was
 * a quarter of a long session's turn).
 */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A message as the provider sees it, without its images. */
function messageText(m: ChatMessage): string {
  const calls = m.toolCalls?.length ? JSON.stringify(m.toolCalls) : '';
  return `${m.role}\n${m.toolCallId ?? ''}\n${calls}\n${m.content}`;
}

const total = (parts: readonly Part[]) => parts.reduce((n, p) => n + p.size, 0);

/**
 * Where `after` first stops repeating `before`, in request order (tools, system, messages),
 * and the share of `before` (in characters) that it repeats up to there; undefined when it
 * repeats all of it.
 */
function firstDifference(
  before: Shape,
  after: Shape,
): { part: CacheBreakPart; at: number; share: number } | undefined {
  const size = total(before.tools) + before.system.length + total(before.messages);
  const share = (kept: number) => (size === 0 ? 1 : kept / size);
  const tools = commonParts(before.tools, after.tools);
  if (tools.count < before.tools.length || after.tools.length !== before.tools.length)
    return { part: 'tools', at: tools.count, share: share(tools.size) };
  let kept = tools.size;
  if (after.system !== before.system) {
    const at = commonPrefix(before.system, after.system);
    return { part: 'system', at, share: share(kept + at) };
  }
  kept += before.system.length;
  const messages = commonParts(before.messages, after.messages);
  if (messages.count < before.messages.length)
    return { part: 'messages', at: messages.count, share: share(kept + messages.size) };
  return undefined;
}

/** How many parts two lists share from their start, and their size. */
function commonParts(a: readonly Part[], b: readonly Part[]): { count: number; size: number } {
  let count = 0;
  let size = 0;
  while (count < a.length && count < b.length && a[count]!.hash === b[count]!.hash) {
    size += a[count]!.size;
    count++;
  }
  return { count, size };
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
