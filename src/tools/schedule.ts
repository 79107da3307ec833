import { Cron } from 'croner';
import { z } from 'zod';
import type { JobRow } from '../store/job-repo.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

const schema = z.object({
  action: z.enum(['create', 'list', 'pause', 'resume', 'remove']),
  id: z.string().optional(),
  schedule: z.string().optional(),
  skill: z.string().optional(),
  prompt: z.string().max(2000).optional(),
});

/** Said with every new job until the scheduler (SPEC §8) exists. */
export const NOT_RUN_YET =
  'Scheduled jobs are stored but do not run yet in this version of satchel: tell the user so.';

/** `schedule`: this pack's scheduled jobs in this chat (the pack's manifest jobs are listed too). */
export function createScheduleTool(
  ctx: Pick<TurnToolContext, 'jobs' | 'pack' | 'address' | 'clock'>,
) {
  const { jobs, pack, address } = ctx;

  function create(args: z.infer<typeof schema>): string {
    if (!args.schedule) throw new ToolError('"schedule" (a 5-field cron expression) is required');
    if (!args.skill && !args.prompt) throw new ToolError('give a "skill" or a "prompt" to run');
    if (args.skill && !pack.skills.some((s) => s.name === args.skill))
      throw new ToolError(`no skill "${args.skill}" in this pack`);
    let next: Date | null;
    try {
      if (args.schedule.trim().split(/\s+/).length !== 5) throw new Error('needs 5 fields');
      next = new Cron(args.schedule, { paused: true }).nextRun();
    } catch (error) {
      throw new ToolError(
        `"${args.schedule}" is not a valid 5-field cron expression (${(error as Error).message})`,
      );
    }
    const job = jobs.create(
      {
        pack: pack.name,
        to: address,
        schedule: args.schedule.trim(),
        ...(args.skill ? { skill: args.skill } : {}),
        ...(args.prompt ? { prompt: args.prompt } : {}),
      },
      ctx.clock.now(),
    );
    return `created job ${job.id}; its next time is ${next?.toISOString() ?? 'never'}. ${NOT_RUN_YET}`;
  }

  function list(): string {
    const rows = jobs.list(pack.name, address).map(describe);
    const manifest = pack.manifest.cron.map(
      (c) =>
        `- ${c.id} (pack default): "${c.schedule}" skill ${c.skill}${c.enabled ? '' : ' [disabled]'}`,
    );
    return [...rows, ...manifest].join('\n') || 'no jobs';
  }

  return defineTool({
    name: 'schedule',
    description:
      "Create, list, pause, resume or remove this pack's scheduled jobs for this chat. A job runs a skill or a prompt on a 5-field cron schedule. Jobs are stored but do not run yet in this version.",
    schema,
    async run(args) {
      if (args.action === 'create') return create(args);
      if (args.action === 'list') return list();
      if (!args.id) throw new ToolError(`"id" is required to ${args.action} a job`);
      const done =
        args.action === 'remove'
          ? jobs.remove(args.id, pack.name, address)
          : jobs.setEnabled(args.id, pack.name, address, args.action === 'resume');
      if (!done) throw new ToolError(`no job "${args.id}" of this pack in this chat`);
      return `job ${args.id} ${args.action === 'remove' ? 'removed' : `${args.action}d`}`;
    },
  });
}

function describe(job: JobRow): string {
  const what = job.skill ? `skill ${job.skill}` : `prompt "${job.prompt}"`;
  return `- ${job.id}: "${job.schedule}" ${what}${job.enabled ? '' : ' [paused]'}`;
}
