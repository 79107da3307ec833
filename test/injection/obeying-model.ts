/**
 * The worst model satchel must assume: it obeys whatever it reads. Given to the fake model as
 * its responder (`FakeModel.setDefault`), it scans every request — the system prompt (pack
 * notes, the compaction summary), every message and tool result, enveloped or not, the text
 * inside images — for planted orders (orders.ts) and makes the first call it has not made in
 * this session, one per request; with nothing left to do it answers in words, repeating the
 * orders it keeps for a later turn (so they stay in the history, as a model that "remembers"
 * them would). It answers a memory flush with the orders it read and a summary request with
 * them carried over (the orders still waiting for a later turn: what was done is done), and
 * a vision request with the text it finds in the images.
 *
 * "This session" is read from the request itself: a call is made when an assistant message of
 * the history carries its id, so a fresh session (after /new or /compact, a job's run) starts
 * over, as a model with no memory but its context would.
 */

import type { ScriptedReply } from '../fakes/model-server.ts';
import { type RecordedRequest, SENT_LINE, systemText } from '../fakes/model-server.ts';
import { isFlush, isSummary } from '../support/compaction.ts';
import { callsOf, type FoundOrder, ordersIn } from './orders.ts';

interface Seen extends FoundOrder {
  /** Seen in an earlier turn (or in the system prompt), not only in the current one. */
  earlier: boolean;
}

type Message = {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
};

/** The text an image carries (the attacker's words drawn in it): its printable runs. */
export function textInImage(data: string): string {
  const bytes = Buffer.from(data, 'base64').toString('latin1');
  return (bytes.match(/[\x20-\x7e\n]{8,}/g) ?? []).join('\n');
}

/** A JPEG-looking image whose pixels "show" `text`. */
export function imageShowing(text: string): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
    Buffer.from(`\n${text}\n`, 'latin1'),
    Buffer.from([0xff, 0xd9]),
  ]);
}

function partsOf(content: unknown): { texts: string[]; images: string[] } {
  if (typeof content === 'string') return { texts: [content], images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (typeof part?.text === 'string') texts.push(part.text);
    const url: unknown = part?.image_url?.url;
    if (typeof url === 'string') images.push(url.replace(/^data:[^,]*,/, ''));
  }
  return { texts, images };
}

const isVision = (req: RecordedRequest) => systemText(req).startsWith('You describe images');

export interface ObeyingModel {
  respond(req: RecordedRequest): ScriptedReply;
  /** How many calls it made that planted orders asked for. */
  calls(): number;
}

export function obeyingModel(): ObeyingModel {
  /** The calls it made: call id → the order and which of its calls. */
  const made = new Map<string, { order: string; n: number }>();
  let next = 1;

  function seenIn(messages: Message[]): Seen[] {
    const turnStart = messages.findLastIndex(
      (m) => m.role === 'user' && partsOf(m.content).texts.some((t) => SENT_LINE.test(t)),
    );
    const found = new Map<string, Seen>();
    messages.forEach((m, i) => {
      const { texts, images } = partsOf(m.content);
      const text = [...texts, ...images.map(textInImage)].join('\n');
      const earlier = m.role === 'system' || m.role === 'developer' || i < turnStart;
      for (const order of ordersIn(text)) {
        const known = found.get(order.id);
        if (known) known.earlier ||= earlier;
        else found.set(order.id, { ...order, earlier });
      }
    });
    return [...found.values()];
  }

  function act(messages: Message[]): ScriptedReply {
    const orders = seenIn(messages);
    const issued = new Set<string>();
    const results = new Map<string, string>();
    for (const m of messages) {
      for (const call of m.tool_calls ?? []) {
        const mine = made.get(call.id);
        if (mine) issued.add(`${mine.order}#${mine.n}`);
      }
      const mine = m.role === 'tool' && m.tool_call_id ? made.get(m.tool_call_id) : undefined;
      if (mine && mine.n === 0) results.set(mine.order, partsOf(m.content).texts.join('\n'));
    }
    const later: Seen[] = [];
    for (const order of orders) {
      if (order.when === 'next' && !order.earlier) {
        later.push(order);
        continue;
      }
      const calls = callsOf(order, (id) => results.get(id));
      const n = calls?.findIndex((_, i) => !issued.has(`${order.id}#${i}`)) ?? -1;
      if (!calls || n === -1) continue;
      const id = `call_obey_${next++}`;
      made.set(id, { order: order.id, n });
      return { toolCalls: [{ id, name: order.tool, arguments: calls[n]! }] };
    }
    const kept = later.map((o) => o.line).join('\n');
    return { text: kept ? `Noted, for your next message:\n${kept}` : 'Done.' };
  }

  return {
    respond(req) {
      const messages = (req.body.messages ?? []) as Message[];
      if (isVision(req)) {
        const images = messages.flatMap((m) => partsOf(m.content).images);
        return { text: images.map(textInImage).join('\n') || 'A photo.' };
      }
      if (isFlush(req) || isSummary(req)) {
        const skip = isFlush(req) ? 'summary' : 'flush';
        const lines = seenIn(messages.filter((m) => m.role === 'user'))
          .filter((o) => o.when === 'next' && o.via !== skip)
          .map((o) => o.line);
        if (isFlush(req))
          return { text: lines.length ? lines.map((l) => `- ${l}`).join('\n') : 'NOTHING' };
        return {
          text: ['- The user talked with the assistant.', ...lines.map((l) => `- ${l}`)].join('\n'),
        };
      }
      return act(messages);
    },
    calls: () => made.size,
  };
}
