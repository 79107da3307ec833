/**
 * A second channel whose ids are strings, joined to satchel by this folder and one entry in
 * the edge list (`edgesOf(config, [...EDGES, workspace.module])`): users like `U024BE7LH`,
 * private chats like `D024BE7LH`. It brings everything of its own, as an edge must (SPEC
 * §19): its variables (`WORKSPACE_ALLOWED_USER_IDS`, `WORKSPACE_TOKEN`) and their checks,
 * its allowlist in its own id shape, its pairing (a stranger gets a code, the owner's
 * `/pair CODE` or `satchel pair CODE` lets them in and they are told here), its section of
 * `/healthz`, its doctor line and its secret. It shows text as the string-id channel does.
 */
import { z } from 'zod';
import { pass } from '../../src/core/check.ts';
import type { EdgeFactory, EdgeModule, Verdict } from '../../src/core/edge.ts';
import { ConfigError } from '../../src/core/errors.ts';
import type { PairingGate } from '../../src/core/pairing.ts';
import type { Address, InboundEvent, InboundPayload } from '../../src/core/types.ts';
import { plain } from '../../src/outbound/compose.ts';
import { createStringIdChannel } from '../support/string-id-channel.ts';

export const WORKSPACE_PLATFORM = 'ws';
/** A workspace user id: `U` and eight capitals or digits. */
const USER_ID = /^U[0-9A-Z]{8}$/;

/** Its variables, each with its check. */
const variables = z.object({
  WORKSPACE_ALLOWED_USER_IDS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const ids = (value ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean);
      const bad = ids.find((id) => !USER_ID.test(id));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `WORKSPACE_ALLOWED_USER_IDS has "${bad}", which is not a workspace user id (U and 8 capitals or digits)`,
        });
        return z.NEVER;
      }
      return ids;
    }),
  WORKSPACE_TOKEN: z.string().optional(),
});

/** Its settings, or a ConfigError naming each bad variable. */
function settingsOf(env: Readonly<Record<string, string>>) {
  const parsed = variables.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(
      `Invalid configuration:\n${parsed.error.issues.map((i) => `- ${i.message}`).join('\n')}`,
    );
  return parsed.data;
}

/** A private chat's id for a user: `D` and the user's own letters. */
export const dmOf = (user: string): Address => ({
  platform: WORKSPACE_PLATFORM,
  chatId: `D${user.slice(1)}`,
});

/** A line as this channel reads it: `/name args` is a command, anything else text. */
function payloadOf(text: string): InboundPayload {
  const command = /^\/([a-z_]+)(?:\s+([\s\S]*))?$/.exec(text);
  return command
    ? { kind: 'command', command: command[1]!, args: command[2] ?? '' }
    : { kind: 'text', text };
}

/** The gate: the listed and the paired pass; a stranger in a private chat gets a code. */
function gate(allowed: ReadonlySet<string>, pairing: PairingGate) {
  return (event: InboundEvent): Verdict => {
    if (allowed.has(event.senderId) || pairing.isPaired(WORKSPACE_PLATFORM, event.senderId))
      return 'allow';
    if (event.chatType !== 'private') return { deny: true };
    const outcome = pairing.request({
      platform: WORKSPACE_PLATFORM,
      userId: event.senderId,
      chatId: event.address.chatId,
      name: event.senderName,
    });
    if (outcome.kind === 'limited') return { deny: true };
    return { deny: true, reply: plain(`Give this pairing code to the owner: ${outcome.code}`) };
  };
}

/**
 * The workspace edge: `module` goes into the edge list; `say` hands the pipeline what a user
 * typed in their private chat; `channel` shows what each chat shows.
 */
export function workspaceEdge() {
  const channel = createStringIdChannel(WORKSPACE_PLATFORM);
  const state = { accept: undefined as ((event: InboundEvent) => void) | undefined, events: 0 };
  const module: EdgeModule = {
    platform: WORKSPACE_PLATFORM,
    variables: Object.keys(variables.shape),
    create(config): EdgeFactory {
      const settings = settingsOf(config.env);
      const allowed = new Set(settings.WORKSPACE_ALLOWED_USER_IDS);
      return {
        platform: WORKSPACE_PLATFORM,
        name: 'the workspace chat',
        secrets: [settings.WORKSPACE_TOKEN],
        doctor: { local: () => [pass(`workspace allowlist: ${allowed.size} user(s)`)] },
        reach: () => channel,
        connect: ({ pairing }) => ({
          platform: WORKSPACE_PLATFORM,
          channel,
          gate: gate(allowed, pairing),
          owner: settings.WORKSPACE_ALLOWED_USER_IDS[0],
          ingress: (port) => {
            state.accept = port.accept;
            return {
              health: () => ({ ok: true, fields: { connected: true, events: state.events } }),
            };
          },
        }),
      };
    },
  };
  return {
    module,
    channel,
    say(user: string, text: string, name?: string) {
      if (!state.accept) throw new Error('the core has not connected this edge yet');
      state.accept({
        origin: { platform: WORKSPACE_PLATFORM, keys: [`Ev${++state.events}`] },
        address: dmOf(user),
        chatType: 'private',
        senderId: user,
        ...(name ? { senderName: name } : {}),
        receivedAt: Date.now(),
        ...payloadOf(text),
      });
    },
  };
}
