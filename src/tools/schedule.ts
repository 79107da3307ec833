import { z } from 'zod';
import { describeJobs, describeTime } from '../scheduler/describe.ts';
import { type ParsedSchedule, parseSchedule, ScheduleError } from '../scheduler/next-run.ts';
import type { TurnToolContext } from './context.ts';
import { defineTool, ToolError } from './tool.ts';

const schema = z.object({
  action: z.enum(['create', 'list', 'pause', 'resume', 'remove']),
  id: z.string().optional(),
  schedule: z
    .string()
    .max(100)
    .optional()
    .describe(
      'For create: a 5-field cron expression ("30 7 * * 1-5") for a repeating job, or an ISO 8601 date-time with its UTC offset ("2026-11-23T18:00:00+01:00") for one run',
    ),
  skill: z.string().optional(),
  prompt: z.string().max(2000).optional(),
});

/** `schedule`: this pack's scheduled jobs in this chat or topic (its manifest jobs too). */
export function createScheduleTool(
  ctx: Pick<TurnToolContext, 'jobs' | 'pack' | 'address' | 'clock' | 'timezone'>,
) {
  const { jobs, pack, address, timezone } = ctx;

  function create(args: z.infer<typeof schema>): string {
    if (!args.schedule)
      throw new ToolError(
        '"schedule" is required: a 5-field cron expression, or an ISO 8601 date-time with its offset',
      );
    if (!args.skill && !args.prompt) throw new ToolError('give a "skill" or a "prompt" to run');
    if (args.skill && !pack.skills.some((s) => s.name === args.skill))
      throw new ToolError(`no skill "${args.skill}" in this pack`);
    const now = ctx.clock.now();
    let parsed: ParsedSchedule;
    try {
      parsed = parseSchedule(args.schedule, timezone, now);
    } catch (error) {
      if (error instanceof ScheduleError) throw new ToolError(error.message);
      throw error;
    }
    const job = jobs.create(
      {
        pack: pack.name,
        to: address,
        ...parsed,
        ...(args.skill ? { skill: args.skill } : {}),
        ...(args.prompt ? { prompt: args.prompt } : {}),
      },
      now,
    );
    const when = describeTime(job.nextRunAt, timezone, now);
    return parsed.kind === 'once'
      ? `created job ${job.id}: it runs once, ${when}, and its answer is sent to this chat`
      : `created job ${job.id}: "${job.schedule}" in ${timezone}; its next run is ${when}, and its answers are sent to this chat`;
  }

  function setEnabled(id: string, enabled: boolean): string {
    if (!jobs.setEnabled(id, pack.name, address, enabled, ctx.clock.now())) throw notFound(id);
    if (!enabled) return `job ${id} paused`;
    const job = jobs.find(id, pack.name, address);
    const now = ctx.clock.now();
    const next = job?.nextRunAt ?? null;
    return next !== null && next <= now
      ? `job ${id} resumed; its time has passed, so it runs now`
      : `job ${id} resumed; its next run is ${describeTime(next, timezone, now)}`;
  }

  function remove(id: string): string {
    const job = jobs.find(id, pack.name, address);
    if (!job) throw notFound(id);
    if (job.source === 'manifest')
      throw new ToolError(
        `job ${id} is one of the pack's own jobs and comes back with the pack; pause it instead`,
      );
    jobs.remove(id, pack.name, address);
    return `job ${id} removed`;
  }

  return defineTool({
    name: 'schedule',
    description: `Create, list, pause, resume or remove this pack's scheduled jobs for this chat. A job runs a skill or a prompt on a 5-field cron schedule (read in ${timezone}) or once at an ISO 8601 date-time with its offset (a reminder); what it answers is sent to this chat. Tell the user when it will run.`,
    schema,
    async run(args) {
      if (args.action === 'create') return create(args);
      if (args.action === 'list')
        return describeJobs(jobs.list(pack.name, address), timezone, ctx.clock.now());
      if (!args.id) throw new ToolError(`"id" is required to ${args.action} a job`);
      if (args.action === 'remove') return remove(args.id);
      return setEnabled(args.id, args.action === 'resume');
    },
  });
}

const notFound = (id: string) => new ToolError(`no job "${id}" of this pack in this chat`);
