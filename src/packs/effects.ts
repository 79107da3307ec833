import type { Effect } from '../core/trust.ts';
import type { CoreTool, Manifest } from './manifest.ts';

/**
 * The most a core tool can do (SPEC §17), as `pack add` shows it before installing: a
 * tool whose effect depends on its arguments (`memory` reads or writes) is shown with the
 * larger one, and `send_message` as `external` (it can send a file by URL).
 */
/**
 * The most `tool` can do in the pack `manifest` enables it in: `send_message` of a pack that
 * declares `send_files: false` sends no file, so it is `read` there.
 */
export function toolEffect(manifest: Pick<Manifest, 'send_files'>, tool: CoreTool): Effect {
  if (tool === 'send_message' && !manifest.send_files) return 'read';
  return CORE_TOOL_EFFECTS[tool];
}

export const CORE_TOOL_EFFECTS: Readonly<Record<CoreTool, Effect>> = {
  memory: 'write',
  skill_view: 'read',
  db_query: 'read',
  db_write: 'write',
  send_message: 'external',
  ask_user: 'read',
  schedule: 'write',
  web_fetch: 'read',
  web_search: 'read',
  memory_search: 'read',
};
