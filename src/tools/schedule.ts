import { z } from 'zod';
import { type Changed, changed } from '../core/changes.ts';
import { describeJobs, describeTime } from '../scheduler/describe.ts';
import { JobLimitError } from '../store/job-repo.ts';
import { type ParsedSchedule, parseSchedule, ScheduleError } from '../time/next-run.ts';
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

/** How soon a one-shot that a job's run creates may run: a chain of them is a repeating job. */
const MIN_CHAIN_GAP_MS = 60_000;

/**
 * `schedule`: this pack's scheduled jobs in this chat or topic (its manifest jobs too).
 * Creating is bounded (SPEC §8): at most MAX_JOBS jobs per pack and chat, a repeating job at
 * most once a minute, and none from a job's own run unless the manifest allows it.
 */
export function createScheduleTool(
  ctx: Pick<
    TurnToolContext,
    'jobs' | 'pack' | 'address' | 'clock' | 'timezone' | 'inJobRun' | 'taint' | 'person'
  >,
) {
  const { jobs, pack, address, timezone } = ctx;

  function create(args: z.infer<typeof schema>): Changed {
    if (ctx.inJobRun && !pack.manifest.jobs_may_schedule)
      throw new ToolError(
        "a scheduled job's run cannot create jobs (this pack's manifest does not set " +
          'jobs_may_schedule: true). If a new job is needed, say so in your answer and the ' +
          'user can ask for it in the chat.',
      );
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
    if (ctx.inJobRun && parsed.kind === 'once' && parsed.nextRunAt - now < MIN_CHAIN_GAP_MS)
      throw new ToolError(
        "a one-shot created by a scheduled job's run must be at least a minute ahead; give a later time",
      );
    const job = store(parsed, args, now);
    const when = describeTime(job.nextRunAt, timezone, now);
    const once = parsed.kind === 'once';
    return changed(
      once
        ? `created job ${job.id}: it runs once, ${when}, and its answer is sent to this chat`
        : `created job ${job.id}: "${job.schedule}" in ${timezone}; its next run is ${when}, and its answers are sent to this chat`,
      { kind: 'job', action: 'created', once, at: job.nextRunAt },
    );
  }

  function store(parsed: ParsedSchedule, args: z.infer<typeof schema>, now: number) {
    try {
      return jobs.create(
        {
          pack: pack.name,
          to: address,
          ...parsed,
          ...(args.skill ? { skill: args.skill } : {}),
          ...(args.prompt ? { prompt: args.prompt } : {}),
          taint: ctx.taint(),
          ...(ctx.person ? { person: ctx.person } : {}),
        },
        now,
      );
    } catch (error) {
      if (!(error instanceof JobLimitError)) throw error;
      throw new ToolError(
        `this pack already has ${error.limit} scheduled jobs in this chat, the most it may ` +
          `have (MAX_JOBS = ${error.limit}). To free a slot, remove a job that is no longer ` +
          'needed (action "remove" with its id; "list" shows them), or ask the user which one to drop.',
      );
    }
  }

  function setEnabled(id: string, enabled: boolean): Changed {
    if (enabled) refuseResumingARun(id);
    if (!jobs.setEnabled(id, pack.name, address, enabled, ctx.clock.now())) throw notFound(id);
    // Changed in a tainted session, it remembers it (SPEC §17), also if the owner approved.
    jobs.taint(id, ctx.taint());
    if (!enabled) return changed(`job ${id} paused`, { kind: 'job', action: 'paused' });
    const job = jobs.find(id, pack.name, address);
    const now = ctx.clock.now();
    const next = job?.nextRunAt ?? null;
    return changed(
      next !== null && next <= now
        ? `job ${id} resumed; its time has passed, so it runs now`
        : `job ${id} resumed; its next run is ${describeTime(next, timezone, now)}`,
      { kind: 'job', action: 'resumed' },
    );
  }

  /**
   * A job whose run is under way (often the run asking) is not paused: resuming it would do
   * nothing, and "runs now" would be untrue of a one-shot, which ends with this run.
   */
  function refuseResumingARun(id: string): void {
    const job = jobs.find(id, pack.name, address);
    if (!job || job.runningDueAt === null || !job.enabled) return;
    const after =
      job.kind === 'once'
        ? 'a one-shot job ends with its run and is then removed; to run it again, the user can ask for a new job'
        : `it stays scheduled and runs again at its next time ("${job.schedule}")`;
    throw new ToolError(`job ${id} is running now, so there is nothing to resume: ${after}`);
  }

  function remove(id: string): Changed {
    const job = jobs.find(id, pack.name, address);
    if (!job) throw notFound(id);
    if (job.source === 'manifest')
      throw new ToolError(
        `job ${id} is one of the pack's own jobs and comes back with the pack; pause it instead`,
      );
    jobs.remove(id, pack.name, address);
    return changed(`job ${id} removed`, { kind: 'job', action: 'removed' });
  }

  return defineTool({
    name: 'schedule',
    description: `Create, list, pause, resume or remove this pack's scheduled jobs for this chat. A job runs a skill or a prompt on a 5-field cron schedule (read in ${timezone}) or once at an ISO 8601 date-time with its offset (a reminder); what it answers is sent to this chat. Tell the user when it will run.`,
    schema,
    effect: ({ action }) => (action === 'list' ? 'read' : 'write'),
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
