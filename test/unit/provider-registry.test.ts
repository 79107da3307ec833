import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.ts';
import { envSchema } from '../../src/config/schema.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { checkProviders } from '../../src/ops/doctor-remote.ts';
import { PROVIDER_CLIENTS, type ProviderClients } from '../../src/providers/clients.ts';
import { createChatModel, createTranscriber } from '../../src/providers/index.ts';
import { keyRefusal } from '../../src/providers/key-hint.ts';
import { parseModelRef } from '../../src/providers/model-ref.ts';
import {
  PROVIDER_NAMES,
  PROVIDERS,
  type Provider,
  type ProviderSpec,
  providerSecrets,
  STT_PROVIDERS,
  specOf,
} from '../../src/providers/registry.ts';
import { createVisionModel } from '../../src/providers/vision.ts';
import { bundledCatalog } from '../../src/usage/catalog.ts';
import { refusingRoot } from '../support/dead-hosts.ts';

const TOKEN = '123456:ABC-def_ghi';

/** What an entry lacks: each problem names the field to fill in. */
function problemsOf(spec: ProviderSpec, clients: Partial<ProviderClients> | undefined): string[] {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) problems.push('name: lowercase letters, digits, -');
  for (const variable of ['apiKey', 'baseUrl'] as const)
    if (!/^[A-Z][A-Z0-9_]*$/.test(spec.env[variable])) problems.push(`env.${variable}`);
  if (spec.env.apiKey === spec.env.baseUrl) problems.push('env: two different variables');
  if (!spec.env.help.trim()) problems.push('env.help');
  if (!spec.defaults.chat.trim()) problems.push('defaults.chat');
  if (spec.defaults.vision?.trim() === '') problems.push('defaults.vision');
  if (typeof clients?.chatModel !== 'function') problems.push('clients.chatModel');
  if (typeof clients?.listModels !== 'function') problems.push('clients.listModels (probe)');
  if (typeof clients?.mapError !== 'function') problems.push('clients.mapError');
  if ((spec.defaults.stt !== undefined) !== (typeof clients?.transcriber === 'function'))
    problems.push('defaults.stt and clients.transcriber go together');
  if (keyRefusal(spec.name, 401) === undefined) problems.push('key hint');
  return problems;
}

/** The configuration of a bot on `spec` alone, with its key and base URL set. */
function configOn(spec: ProviderSpec, env: Record<string, string> = {}) {
  return parseConfig({
    TELEGRAM_BOT_TOKEN: TOKEN,
    LLM_PROVIDER: spec.name,
    [spec.env.apiKey]: `key-of-${spec.name}`,
    [spec.env.baseUrl]: 'http://127.0.0.1:9/',
    ...env,
  });
}

function errorOf(env: Record<string, string>): string {
  try {
    parseConfig({ TELEGRAM_BOT_TOKEN: TOKEN, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('an entry of the provider registry', () => {
  it('is incomplete without its help, defaults, probe, transcriber or key hint', () => {
    const openai = PROVIDERS[0];
    const broken: ProviderSpec = {
      name: 'Mistral AI',
      env: { apiKey: 'MISTRAL_KEY', baseUrl: 'MISTRAL_KEY', help: ' ' },
      defaults: { chat: '', stt: 'voxtral' },
    };
    const { listModels: _, transcriber: __, ...noProbe } = PROVIDER_CLIENTS.groq;
    expect(problemsOf(broken, noProbe)).toEqual([
      'name: lowercase letters, digits, -',
      'env: two different variables',
      'env.help',
      'defaults.chat',
      'clients.listModels (probe)',
      'defaults.stt and clients.transcriber go together',
      'key hint',
    ]);
    expect(problemsOf(openai, undefined)).toEqual([
      'clients.chatModel',
      'clients.listModels (probe)',
      'clients.mapError',
      'defaults.stt and clients.transcriber go together',
    ]);
  });

  it.each(PROVIDERS)('$name is complete', (spec) => {
    expect(problemsOf(spec, PROVIDER_CLIENTS[spec.name])).toEqual([]);
  });

  it('has clients for every provider and no others', () => {
    expect(Object.keys(PROVIDER_CLIENTS).sort()).toEqual([...PROVIDER_NAMES].sort());
  });
});

describe.each(PROVIDERS)('the configuration reads the registry: $name', (spec) => {
  const { apiKey, baseUrl } = spec.env;

  it('accepts it as LLM_PROVIDER and reads its key and base URL', () => {
    expect(envSchema.shape).toHaveProperty(apiKey);
    expect(envSchema.shape).toHaveProperty(baseUrl);
    const config = configOn(spec);
    expect(config.llm.provider).toBe(spec.name);
    expect(config.providers[spec.name]).toEqual({
      apiKey: `key-of-${spec.name}`,
      baseUrl: 'http://127.0.0.1:9/',
    });
  });

  it('requires its key, or a base URL, and validates the base URL', () => {
    expect(errorOf({ LLM_PROVIDER: spec.name })).toBe(
      `Invalid configuration:\n- ${apiKey} is required when LLM_PROVIDER=${spec.name}: set it, or point ${baseUrl} at a compatible server`,
    );
    expect(errorOf({ LLM_PROVIDER: spec.name, [apiKey]: 'k', [baseUrl]: 'nowhere' })).toBe(
      `Invalid configuration:\n- ${baseUrl} must be an http(s) URL`,
    );
  });

  it('accepts it in LLM_FALLBACK and in a pack model reference', () => {
    const other = PROVIDERS.find((p) => p.name !== spec.name)!;
    const config = configOn(other, { [apiKey]: 'k', LLM_FALLBACK: `${spec.name}:some:model` });
    expect(config.llm.fallback).toEqual({ provider: spec.name, model: 'some:model' });
    expect(parseModelRef(`${spec.name}:m:1`, other.name)).toEqual({
      provider: spec.name,
      model: 'm:1',
    });
  });

  it('keeps its key out of logs and stored text', () => {
    expect(providerSecrets(configOn(spec).providers)).toContain(`key-of-${spec.name}`);
  });

  it('builds its chat and vision models with its defaults', () => {
    const config = configOn(spec);
    expect(createChatModel(config, bundledCatalog(), spec.name).info).toMatchObject({
      provider: spec.name,
      model: spec.defaults.chat,
    });
    const vision = createVisionModel(config, bundledCatalog());
    expect(vision?.info.model).toBe(spec.defaults.vision);
  });

  it('names its key variable when the key is refused', () => {
    expect(keyRefusal(spec.name, 401)?.hint).toContain(`check ${apiKey}`);
    expect(keyRefusal(spec.name, 401)?.hint).toContain(baseUrl);
    expect(keyRefusal(spec.name, 403)?.userMessage).toContain(apiKey);
  });

  it('is probed by the doctor, whose fix names its base URL when the host is down', async () => {
    const config = configOn(spec, { [baseUrl]: await refusingRoot() });
    const uses = [{ provider: spec.name, model: spec.defaults.chat, use: 'chat' as const }];
    const [check] = await checkProviders(config, uses, 5000);
    expect(check?.status).toBe('fail');
    expect(check?.title).toMatch(new RegExp(`^${spec.name}: cannot reach it \\(${spec.name} `));
    expect(check?.fix).toBe(
      `Check the network, and ${baseUrl} if it is set (the server it names must be running).`,
    );
  });
});

describe('speech to text reads the registry', () => {
  it.each(STT_PROVIDERS)(
    '%s transcribes with its default model when STT_PROVIDER names it',
    (name) => {
      const spec = specOf(name as Provider);
      const config = configOn(PROVIDERS[0], { STT_PROVIDER: name, [spec.env.apiKey]: 'k' });
      expect(createTranscriber(config)?.info).toEqual({ provider: name, model: spec.defaults.stt });
      expect(createTranscriber(configOn(PROVIDERS[0], { STT_PROVIDER: 'off' }))).toBeUndefined();
    },
  );

  it('has a transcriber for every provider with a speech-to-text default, and only those', () => {
    for (const spec of PROVIDERS as readonly ProviderSpec[])
      expect(STT_PROVIDERS.includes(spec.name as Provider)).toBe(spec.defaults.stt !== undefined);
    const other = PROVIDERS.find((p) => !STT_PROVIDERS.includes(p.name));
    if (other) expect(errorOf({ STT_PROVIDER: other.name })).toContain('STT_PROVIDER must be');
  });
});

describe('the registry sits below the configuration', () => {
  const dir = new URL('../../src/providers/', import.meta.url);
  const source = (file: string) => readFileSync(new URL(file, dir), 'utf8');

  it('registry.ts imports nothing, so config/ reads it without loading an SDK', () => {
    expect(source('registry.ts')).not.toMatch(/^import /m);
  });

  it('no module in providers/ imports config/ (no cycle through the configuration)', () => {
    const importers = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '\.\.\/config\//.test(source(f)));
    expect(importers).toEqual([]);
  });
});

describe('.env.example', () => {
  const lines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');

  it.each(PROVIDERS)('explains $name with its help text, above its key and base URL', (spec) => {
    const at = lines.indexOf(`${spec.env.apiKey}=`);
    expect(lines[at + 1]).toBe(`${spec.env.baseUrl}=`);
    const comments: string[] = [];
    for (let i = at - 1; lines[i]?.startsWith('# '); i--) comments.unshift(lines[i]!.slice(2));
    expect(comments.join(' ')).toBe(spec.env.help);
  });
});
