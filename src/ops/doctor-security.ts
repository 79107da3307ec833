import path from 'node:path';
import { type Config, parseConfig } from '../config/config.ts';
import { satchelHome } from '../config/env-file.ts';
import type { EdgeFactory } from '../core/edge.ts';
import { ConfigError } from '../core/errors.ts';
import { loadPacks } from '../packs/loader.ts';
import { type Check, fail, pass, warn } from './check.ts';
import { withheldMcpTools } from './doctor-mcp.ts';
import {
  checkApproval,
  checkBackupAge,
  checkDashboard,
  checkWebAndExternal,
} from './security-config.ts';
import { checkEnvFile, checkHomeModes, fixModes } from './security-files.ts';
import { checkStoredSecrets } from './security-secrets.ts';

/** An MCP tool not offered to the model until the owner accepts its change (SPEC §17). */
export interface WithheldTool {
  pack: string;
  server: string;
  tool: string;
}

export interface SecurityOptions {
  /** The environment, `.env` included. */
  env: Record<string, string | undefined>;
  /** Where `.env` is (the working directory). */
  cwd: string;
  now: number;
  /** `--fix`: apply the safe fixes (file modes) before checking. */
  fix?: boolean;
  /**
   * The MCP tools their pins withhold (tests give their own); default: every pack's
   * servers are started and listed against `mcp_tool_pins`, which is only read.
   */
  withheldTools?: (config: Config) => Promise<readonly WithheldTool[]>;
  /** The application's edges (src/edges.ts), whose own security checks are run; none by default. */
  edges?: (config: Config) => readonly Pick<EdgeFactory, 'doctor'>[];
}

export interface SecurityReport {
  checks: Check[];
  /** What --fix changed, one line each. */
  fixed: string[];
  /** What --fix left as it was though open (a link out, a file with other names), and why. */
  left: string[];
}

/**
 * `satchel doctor --security`: the installation as an attacker would look at it, each
 * finding with its fix. Reads only, unless `fix` (then it changes file modes, nothing else).
 */
export async function runSecurityDoctor(options: SecurityOptions): Promise<SecurityReport> {
  const envFile = path.join(options.cwd, '.env');
  let config: Config | undefined;
  let configCheck: Check | undefined;
  let edges: readonly Pick<EdgeFactory, 'doctor'>[] = [];
  try {
    const parsed = parseConfig(options.env);
    edges = options.edges?.(parsed) ?? [];
    config = parsed;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    configCheck = fail(
      'configuration: invalid (only the files were checked)',
      'Run `npx satchel doctor` to see which variables to fix.',
    );
  }
  const home = config?.home ?? satchelHome(options.env, options.cwd);
  const { fixed, left } = options.fix ? fixModes(envFile, home) : { fixed: [], left: [] };
  const checks: Check[] = [checkEnvFile(envFile), checkHomeModes(home)];
  if (!config) return { checks: [...checks, configCheck!], fixed, left };
  const tokenSet = Boolean(options.env.DASHBOARD_TOKEN?.trim());
  checks.push(
    ...checkDashboard(config, tokenSet),
    ...edges.flatMap((edge) => edge.doctor?.security?.() ?? []),
    checkApproval(config),
    ...checkWebAndExternal(loadPacks(config.packDirs).packs),
    await checkWithheld(
      config,
      options.withheldTools ?? ((c) => withheldMcpTools(c, loadPacks(c.packDirs).packs)),
    ),
    checkStoredSecrets(home),
    checkBackupAge(home, options.now),
  );
  return { checks, fixed, left };
}

async function checkWithheld(
  config: Config,
  withheldTools: NonNullable<SecurityOptions['withheldTools']>,
): Promise<Check> {
  const withheld = await withheldTools(config);
  if (withheld.length === 0) return pass('MCP tools: none withheld');
  return {
    ...warn(
      `MCP tools: ${withheld.length} withheld (changed since you accepted them; the model does not get them)`,
      'Review each change with `npx satchel pack trust PACK`.',
    ),
    detail: withheld.map((t) => `${t.pack}: ${t.server}__${t.tool}`),
  };
}
