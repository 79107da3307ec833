// Loaded with `node --import` by bench-cli.ts: as the process exits, writes the CPU time it
// used (user and system, all its threads, in ms) to the file named by BENCH_CPU_FILE. A
// plain .mjs, so that it costs every process the same whether or not tsx is loaded.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_CPU_FILE;
if (file)
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String((user + system) / 1000));
  });
