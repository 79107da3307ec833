import type { Config } from '../config/config.ts';
import { STRONG_SECRET, weakSecret } from '../core/check.ts';
import { DASHBOARD_HOST } from '../dashboard/server.ts';
import { toolEffect } from '../packs/effects.ts';
import type { Pack } from '../packs/loader.ts';
import { lastBackup } from './backup-record.ts';
import { type Check, fail, pass, warn } from './check.ts';

/** The dashboard reads every conversation: loopback only, and a token nobody can guess. */
export function checkDashboard(config: Config, tokenSet: boolean): Check[] {
  const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(DASHBOARD_HOST);
  const bound = loopback
    ? pass(`dashboard: bound to ${DASHBOARD_HOST} (this machine only)`)
    : fail(
        `dashboard: bound to ${DASHBOARD_HOST}, reachable from other machines`,
        'Bind it to 127.0.0.1 and reach it through an SSH tunnel.',
      );
  const { token } = config.dashboard;
  if (!tokenSet || token === undefined)
    return [bound, pass('dashboard token: random, kept in SATCHEL_HOME (0600)')];
  if (weakSecret(token))
    return [
      bound,
      warn(
        `dashboard token: DASHBOARD_TOKEN is weak (${token.length} characters, ${new Set(token).size} different): anyone on this machine who guesses it reads every conversation`,
        `Leave DASHBOARD_TOKEN empty (a random token, kept in SATCHEL_HOME) or set it to ${STRONG_SECRET}.`,
      ),
    ];
  return [bound, pass('dashboard token: DASHBOARD_TOKEN is long and varied')];
}

/** TOOL_APPROVAL=off lets untrusted text drive writes and sends without asking. */
export function checkApproval(config: Config): Check {
  if (config.trust.approval === 'off')
    return warn(
      'tool approval: TOOL_APPROVAL=off: a web page, search result or MCP result can make satchel write or send without asking you',
      'Set TOOL_APPROVAL=tainted (the default) or always.',
    );
  return pass(`tool approval: TOOL_APPROVAL=${config.trust.approval}`);
}

const WEB_TOOLS = new Set(['web_fetch', 'web_search']);

/**
 * Packs that read the web and can reach outside (send_message with files, MCP servers): the
 * pair a prompt injection needs to carry the owner's data out. A pack that declares
 * `send_files: false` has no external tool but its MCP servers.
 */
export function checkWebAndExternal(packs: readonly Pack[]): Check[] {
  const risky = packs.flatMap((pack) => {
    const web = pack.manifest.tools.filter((t) => WEB_TOOLS.has(t));
    const external = [
      ...pack.manifest.tools.filter((t) => toolEffect(pack.manifest, t) === 'external'),
      ...pack.manifest.mcp.map((server) => `MCP server ${server.name}`),
    ];
    return web.length > 0 && external.length > 0 ? [{ pack, web, external }] : [];
  });
  if (risky.length === 0)
    return [pass(`web and external tools: no pack has both (${packs.length} pack(s))`)];
  return risky.map(({ pack, web, external }) =>
    warn(
      `pack ${pack.name} combines web access (${web.join(', ')}) with external tools (${external.join(', ')}): a page it reads could steer it to send your data out`,
      'Keep TOOL_APPROVAL at tainted or always, so such calls wait for you; or drop one side from its pack.yml (send_files: false keeps send_message to text and buttons).',
    ),
  );
}

/** A backup is what a stolen or broken disk leaves: warn when none is a week old. */
export function checkBackupAge(home: string, now: number): Check {
  const last = lastBackup(home);
  const fix =
    'Run `npx satchel backup` (a daily cron job is best) and keep the archive on another disk.';
  if (!last)
    return warn('backup: none recorded (`npx satchel backup` notes each one it writes)', fix);
  const days = Math.floor((now - last.at) / 86_400_000);
  const when = new Date(last.at).toISOString().slice(0, 10);
  if (days > 7)
    return warn(`backup: the last one is ${days} days old (${when}, ${last.archive})`, fix);
  return pass(`backup: the last one is from ${when} (${last.archive})`);
}
