import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { encodeButton } from '../core/button-data.ts';
import { homeKey } from '../core/home.ts';
import type { InlineButton, MediaSource } from '../core/ports.ts';
import type { OutboundPayload } from '../outbound/degrade.ts';
import { type ActionSpec, buttonProblems } from '../packs/actions.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

const actionButton = z
  .object({
    label: z.string().min(1).max(40),
    action: z.string().min(1),
    params: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .optional(),
  })
  .strict();
type ActionButtonArgs = z.infer<typeof actionButton>;

const schema = z.object({
  kind: z.enum(['text', 'photo', 'audio', 'voice', 'document', 'keyboard', 'chat_action']),
  text: z.string().optional(),
  url: z.string().url().optional(),
  path: z.string().optional(),
  caption: z.string().optional(),
  buttons: z
    .array(z.union([z.string().min(1).max(40), actionButton]))
    .max(12)
    .optional(),
  action: z.enum(['typing', 'upload_photo', 'upload_document', 'record_voice']).optional(),
});
type Args = z.infer<typeof schema>;

type SendContext = Pick<
  TurnToolContext,
  'outbox' | 'address' | 'storage' | 'channelName' | 'pack' | 'keyboards'
>;

/**
 * `send_message`: an extra message to the current chat, through the outbox like everything
 * else. Files come from a URL or from the pack's `files/` workspace, never elsewhere (not
 * through a symlink or a hard link either), and must exist as regular files before anything
 * is queued. The
 * result says what the channel could not send as asked.
 */
export function createSendMessageTool(ctx: SendContext) {
  const { actions, send_files: files } = ctx.pack.manifest;
  return defineTool({
    name: 'send_message',
    description: `Send an extra message to this chat: text (Markdown), ${files ? 'a photo/audio/voice/document (url, or path inside the pack workspace), ' : ''}a keyboard (text + buttons the user can press: a label, sent as if typed${actions.length ? ", or {label, action, params} running one of this pack's actions at once" : ''}), or a chat action.${actions.length ? ` Actions: ${actions.map(signature).join(', ')}.` : ''}`,
    schema,
    // A file goes by URL or from the workspace: it can carry data out. Text stays here. A
    // pack that sends no files (`send_files: false`) is refused one before the gate.
    effect: (args) =>
      files && (args.url !== undefined || args.path !== undefined) ? 'external' : 'read',
    async run(args) {
      if (!files && (args.url !== undefined || args.path !== undefined))
        throw new ToolError(
          'this pack sends text and buttons only (send_files: false in its pack.yml): put the link in the text instead',
        );
      const payload = await toPayload(args, ctx.storage.filesDir, (buttons) =>
        keyboardOf(ctx, buttons),
      );
      const { ids, note } = ctx.outbox.writePayload(ctx.address, payload);
      if (!(await ctx.outbox.dispatch(ids)))
        throw new ToolError(`${ctx.channelName} did not accept the message, so it was not sent`);
      return note ? `sent, degraded: ${note}` : 'sent';
    },
  });
}

/** `grade(card, grade)`: how the description names an action for the model. */
const signature = (action: Pick<ActionSpec, 'id' | 'params'>) =>
  `${action.id}(${action.params.join(', ')})`;

/**
 * The keyboard, a button a line: a label is sent back as if typed; an action's button is
 * checked against the pack's actions and stored (see action-keyboards.ts), its press running
 * that action on this chat's home.
 */
function keyboardOf(ctx: SendContext, buttons: Args['buttons'] & {}): InlineButton[][] {
  const byId = new Map(ctx.pack.manifest.actions.map((a) => [a.id, a]));
  const pressed = buttons.filter((b): b is ActionButtonArgs => typeof b !== 'string');
  const problems = pressed.flatMap((b) =>
    buttonProblems(b, byId).map((p) => `button "${b.label}": ${p.path.join('.')} ${p.text}`),
  );
  if (problems.length > 0) throw new ToolError(problems.join('; '));
  const place = { pack: ctx.pack.name, home: homeKey(ctx.storage.home), address: ctx.address };
  const minted =
    pressed.length === 0
      ? []
      : ctx.keyboards.mint(
          place,
          pressed.map((b) => [{ label: b.label, action: b.action, params: b.params ?? {} }]),
        );
  let next = 0;
  return buttons.map((b) =>
    typeof b === 'string'
      ? [{ text: b, data: encodeButton({ type: 'say', text: b }) }]
      : minted[next++]!,
  );
}

async function toPayload(
  args: Args,
  filesDir: string,
  keyboard: (buttons: Args['buttons'] & {}) => InlineButton[][],
): Promise<OutboundPayload> {
  switch (args.kind) {
    case 'chat_action':
      return { kind: 'action', action: args.action ?? 'typing' };
    case 'text':
    case 'keyboard': {
      if (!args.text?.trim()) throw new ToolError(`"text" is required for kind "${args.kind}"`);
      const buttons = args.kind === 'keyboard' ? (args.buttons ?? []) : [];
      if (args.kind === 'keyboard' && buttons.length === 0)
        throw new ToolError('"buttons" is required for kind "keyboard"');
      return {
        kind: 'text',
        text: args.text,
        format: 'markdown',
        ...(buttons.length ? { keyboard: keyboard(buttons) } : {}),
      };
    }
    default:
      return {
        kind: args.kind,
        source: await sourceOf(args, filesDir),
        ...(args.caption ? { caption: args.caption } : {}),
      };
  }
}

/** A URL, or a regular file inside the pack's workspace. */
async function sourceOf(args: Args, filesDir: string): Promise<MediaSource> {
  if (args.url) {
    if (!/^https?:\/\//.test(args.url)) throw new ToolError('"url" must be http(s)');
    return { url: args.url };
  }
  if (!args.path) throw new ToolError(`"url" or "path" is required for kind "${args.kind}"`);
  return { path: await workspaceFile(filesDir, args.path) };
}

const OUTSIDE = '"path" must be a file inside the pack workspace (files/)';

/**
 * The real path of `requested` (relative to the workspace), refused unless it is a regular
 * file with no other hard link whose real location, symlinks resolved, is inside the
 * workspace's real location.
 */
async function workspaceFile(filesDir: string, requested: string): Promise<string> {
  if (requested.includes('\0')) throw new ToolError('"path" must not contain a NUL byte');
  const root = await realpath(filesDir);
  if (!isInside(root, path.resolve(root, requested))) throw new ToolError(OUTSIDE);
  let real: string;
  try {
    real = await realpath(path.resolve(root, requested));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP')
      throw new ToolError(`there is no file "${requested}" in the pack workspace (files/)`);
    throw error;
  }
  if (!isInside(root, real)) throw new ToolError(OUTSIDE);
  const info = await stat(real);
  if (info.isDirectory())
    throw new ToolError(`"${requested}" is a directory, not a file; give the path of a file`);
  if (!info.isFile()) throw new ToolError(`"${requested}" is not a regular file`);
  // A hard link is the same file under another name, which may be outside the workspace
  // (satchel.db, a key): like a symlink out, it is refused.
  if (info.nlink > 1)
    throw new ToolError(`"${requested}" is a hard link to a file with other names; it is not sent`);
  return real;
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  const up = relative === '..' || relative.startsWith(`..${path.sep}`);
  return relative !== '' && !up && !path.isAbsolute(relative);
}
