/**
 * Where a bot's CPU went, from a V8 CPU profile (`BENCH_PROFILE=dir npm run bench`, or any
 * `node --cpu-prof` output): self time by package (node_modules) or satchel file, and the
 * satchel functions with the most time spent inside them (their callees included).
 *
 *   npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [skip-ms]
 *
 * `skip-ms` leaves out the start (module loading): only samples after it are counted.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, skip = '2000'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [skip-ms]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

/** Microseconds of self time per node, after the skipped start. */
const self = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= Number(skip) * 1000) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const where = (n: Node): string => {
  const { url, functionName } = n.callFrame;
  if (url.includes('node_modules/')) {
    const parts = url.split('node_modules/').pop()!.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.includes('/src/')) return `src/${url.split('/src/')[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  // V8's own entries: (idle), (garbage collector), (program), a RegExp, native calls.
  return (functionName || '(other)').slice(0, 60);
};
const add = (map: Map<string, number>, key: string, us: number) =>
  map.set(key, (map.get(key) ?? 0) + us);
const top = (map: Map<string, number>, n: number) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => `${(us / 1000).toFixed(1).padStart(9)} ms  ${key}`)
    .join('\n');

const packages = new Map<string, number>();
const inside = new Map<string, number>();
for (const [id, us] of self) {
  add(packages, where(byId.get(id)!), us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    if (!n.callFrame.url.includes('/src/')) continue;
    const name = `${n.callFrame.functionName || '(anonymous)'}  ${where(n)}`;
    if (!seen.has(name)) add(inside, name, us);
    seen.add(name);
  }
}
packages.delete('(idle)');
console.log(`Self time by package or file (after the first ${skip} ms)\n${top(packages, 20)}\n`);
console.log(`satchel functions, time inside them (callees included)\n${top(inside, 40)}`);
