import { lazyChild } from '../core/lazy-child.ts';
import type { ToolRunner } from '../core/ports.ts';
import { packMcpTools } from '../mcp/pack-tools.ts';
import { CORE_TOOLS } from '../packs/manifest.ts';
import { pinnedSkillText } from '../packs/prompt.ts';
import { createToolRunner, packTools } from '../tools/registry.ts';
import type { TrustGate } from '../tools/trust/gate.ts';
import type { Conversing, Delivery, Runtime, Turns } from './services.ts';
import { acceptsImages, type ChatTurn, type Routed, scopeOf } from './turn-parts.ts';
import { trustGate } from './turn-trust.ts';

export interface ToolsServices {
  conversing: Pick<Conversing, 'people'>;
  delivery: Pick<Delivery, 'outbox' | 'channelName'>;
  runtime: Pick<Runtime, 'clock' | 'timezone' | 'log'>;
  turns: Pick<
    Turns,
    'asks' | 'keyboards' | 'jobs' | 'web' | 'messages' | 'mcp' | 'trust' | 'fallbackAcceptsImages'
  >;
}

/**
 * Step 2: the pack's tools, bound to this turn (none without a pack): its core tools, then
 * its MCP servers' tools (started on the pack's first turn; a pack without `mcp:` waits
 * for nothing).
 */
export async function toolsFor(
  services: ToolsServices,
  turn: ChatTurn,
  routed: Routed,
): Promise<{ tools: ToolRunner | undefined; gate: TrustGate | undefined }> {
  const { pack, storage, address, turnId } = routed;
  if (!pack || !storage) return { tools: undefined, gate: undefined };
  const log = lazyChild(services.runtime.log, { turnId, pack: pack.name });
  const gate = trustGate(
    services,
    {
      job: turn.job,
      pack: turn.pack,
      address,
      label: pack.displayName,
      session: routed.route.session,
      home: routed.home,
    },
    log,
  );
  // A job's pinned skill is the pack's own instructions (in its system prompt, not its
  // input): a URL it names counts as the owner's, as one in the job's prompt does.
  if (turn.job && turn.pinned) gate.observe(pinnedSkillText(turn.pinned));
  const tools = packTools({
    pack,
    storage,
    address,
    channelName: services.delivery.channelName(address),
    senderId: turn.job ? undefined : turn.events[0]!.senderId,
    senderName: turn.job ? undefined : turn.events[0]!.senderName,
    person: routed.person,
    inJobRun: turn.job !== undefined,
    outbox: services.delivery.outbox,
    asks: services.turns.asks,
    keyboards: services.turns.keyboards,
    jobs: services.turns.jobs,
    clock: services.runtime.clock,
    timezone: services.runtime.timezone,
    web: services.turns.web,
    usage: {
      scope: scopeOf(turn, routed),
      quota: {
        pack: turn.pack,
        sessionId: routed.route.session.id,
        packCaps: routed.packCaps,
        capPerson: routed.capPerson,
      },
    },
    sessionKey: routed.route.session.key,
    messages: services.turns.messages,
    taint: () => gate.sources(),
  });
  const servers = services.turns.mcp.servers(pack.name);
  const mcp =
    servers.length === 0
      ? []
      : await packMcpTools({
          hub: services.turns.mcp.hub,
          servers,
          taken: CORE_TOOLS,
          signal: turn.signal,
          log,
          acceptsImages: acceptsImages(services, routed),
          coreTools: tools.length,
        });
  return { tools: createToolRunner([...tools, ...mcp], log, gate), gate };
}
