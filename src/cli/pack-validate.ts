import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { onePositional } from './args.ts';
import type { CliCommand } from './command.ts';
import { packValidateInfo } from './help.ts';

/** `satchel pack validate DIR`: a summary on stdout (exit 0), or every problem on stderr (1). */
export const packValidateCommand: CliCommand = {
  ...packValidateInfo,
  async run(args, io) {
    const dir = onePositional(args, 'satchel pack validate needs the folder of a pack');
    const [{ withEnvFile }, { envSchema }, { validatePack, validationReport }] = await Promise.all([
      import('../config/env-file.ts'),
      import('../config/schema.ts'),
      import('../packs/validate.ts'),
    ]);
    const env = withEnvFile(io.env, io.cwd);
    const home = path.resolve(io.cwd, envSchema.shape.SATCHEL_HOME.parse(env.SATCHEL_HOME));
    const folder = path.resolve(io.cwd, dir);
    const missing = !existsSync(folder)
      ? 'does not exist'
      : !statSync(folder).isDirectory()
        ? 'is not a folder: give the folder that holds pack.yml'
        : undefined;
    if (missing) {
      io.stderr.write(`satchel pack validate: ${folder} ${missing}.\n`);
      return 1;
    }
    const report = validationReport(validatePack(folder, home, env));
    (report.ok ? io.stdout : io.stderr).write(`${report.text}\n`);
    return report.ok ? 0 : 1;
  },
};
