/**
 * satchel and the bare bot on the same workload, alternating run by run (satchel first in
 * odd rounds, the bare bot first in even ones), so that a machine that gets busier or
 * quieter during the benchmark weighs on both alike.
 */
import { type SpawnOptions, spawnBot } from './bot-control.ts';
import type { BotKind } from './bot-process.ts';
import type { Rig } from './rig.ts';
import { runWorkload, type WorkloadSpec } from './workload.ts';

export interface Samples {
  before: number[];
  after: number[];
  cpuMsPerTurn: number[];
  typing: { sent: number; late: number };
}

export type SideBySide = Record<BotKind, Samples>;

export async function sideBySide(
  rig: Rig,
  spec: WorkloadSpec,
  rounds: number,
  satchelOptions: SpawnOptions = {},
): Promise<SideBySide> {
  const empty = (): Samples => ({
    before: [],
    after: [],
    cpuMsPerTurn: [],
    typing: { sent: 0, late: 0 },
  });
  const result: SideBySide = { satchel: empty(), bare: empty() };
  for (let round = 0; round < rounds; round++) {
    const order: BotKind[] = round % 2 === 0 ? ['satchel', 'bare'] : ['bare', 'satchel'];
    for (const kind of order) {
      const options = kind === 'satchel' ? satchelOptions : {};
      const bot = await spawnBot(kind, rig.env(kind, rig.newHome(), spec.chats), options);
      try {
        const run = await runWorkload(rig, bot, spec);
        const samples = result[kind];
        samples.before.push(...run.turns.map((t) => t.before));
        samples.after.push(...run.turns.map((t) => t.after));
        samples.cpuMsPerTurn.push(run.cpuMsPerTurn);
        samples.typing.sent += run.typing.sent;
        samples.typing.late += run.typing.late;
      } finally {
        await bot.stop();
      }
    }
  }
  return result;
}
