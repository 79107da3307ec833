import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Every fetched Telegram update, written before it is processed (the durable inbox). */
export const inboundUpdates = sqliteTable(
  'inbound_updates',
  {
    updateId: integer('update_id').primaryKey(),
    payload: text('payload').notNull(),
    receivedAt: integer('received_at').notNull(),
    status: text('status', { enum: ['pending', 'done'] })
      .notNull()
      .default('pending'),
    doneAt: integer('done_at'),
  },
  (t) => [index('inbound_updates_status').on(t.status, t.receivedAt)],
);

/**
 * The durable inbox of edges other than Telegram (the web chat): what a user typed or
 * pressed, written before it is handled and marked done in its reply's transaction. `key`
 * is the edge's own origin key, unique within its `platform`.
 */
export const edgeInbox = sqliteTable(
  'edge_inbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    platform: text('platform').notNull(),
    key: text('key').notNull(),
    payload: text('payload').notNull(),
    receivedAt: integer('received_at').notNull(),
    status: text('status', { enum: ['pending', 'done'] })
      .notNull()
      .default('pending'),
    doneAt: integer('done_at'),
  },
  (t) => [
    uniqueIndex('edge_inbox_key').on(t.platform, t.key),
    index('edge_inbox_pending').on(t.platform, t.status, t.receivedAt),
  ],
);

/** Binds a conversation address to its active pack and session. */
export const conversationRoutes = sqliteTable('conversation_routes', {
  address: text('address').primaryKey(),
  platform: text('platform').notNull(),
  chatId: text('chat_id').notNull(),
  threadId: text('thread_id'),
  activePack: text('active_pack'),
  sessionId: text('session_id'),
  updatedAt: integer('updated_at').notNull(),
  /** The chat model picked with /model for this chat or topic (`provider:model`). */
  model: text('model'),
  /** /usage footer on: each answer here ends with the turn's tokens and cost. */
  usageFooter: integer('usage_footer', { mode: 'boolean' }).notNull().default(false),
  /** /voice for this chat or topic (`on`, `off`, `inbound`); null follows VOICE_REPLY. */
  voiceReply: text('voice_reply', { enum: ['on', 'off', 'inbound'] }),
  /** /queue for this chat or topic (`steer`, `followup`); null follows QUEUE_MODE. */
  queueMode: text('queue_mode', { enum: ['steer', 'followup'] }),
  /** When a person (not a job) last wrote here, in ms: jobs pause after JOB_IDLE_DAYS. */
  lastPersonAt: integer('last_person_at'),
  /**
   * Bound through DEFAULT_PACK (not picked, nor a topic named after its pack): such a topic
   * is no pack's workspace and follows GROUP_REPLY (SPEC §12).
   */
  viaDefault: integer('via_default', { mode: 'boolean' }).notNull().default(false),
});

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    key: text('key').notNull(),
    pack: text('pack').notNull(),
    address: text('address').notNull(),
    kind: text('kind', { enum: ['chat', 'job'] })
      .notNull()
      .default('chat'),
    summary: text('summary'),
    /** The summary covers this session's messages up to this id (older ones are not sent). */
    summaryUpto: integer('summary_upto'),
    /**
     * When the session first read untrusted content (SPEC §17): from then until /new its
     * calls that change things ask the owner. Null while it is clean.
     */
    taintedAt: integer('tainted_at'),
    /** The untrusted sources it read, newline-separated, as approval questions name them. */
    taintSources: text('taint_sources'),
    createdAt: integer('created_at').notNull(),
    closedAt: integer('closed_at'),
  },
  (t) => [index('sessions_key').on(t.key, t.createdAt)],
);

export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id').notNull(),
    turnId: text('turn_id').notNull(),
    role: text('role', { enum: ['user', 'assistant', 'tool', 'system'] }).notNull(),
    content: text('content').notNull(),
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    /** Set for user input from Telegram so a re-processed update is stored once. */
    sourceKey: text('source_key'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('messages_session').on(t.sessionId, t.id),
    uniqueIndex('messages_source_key').on(t.sourceKey).where(sql`source_key IS NOT NULL`),
  ],
);

/** Everything sent to a chat: written before it is sent, marked with the message id after. */
export const outbox = sqliteTable(
  'outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The channel the row goes out on: the `platform` of its address (`tg`). */
    channel: text('channel').notNull().default('tg'),
    chatId: text('chat_id').notNull(),
    threadId: text('thread_id'),
    kind: text('kind').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'sent', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    messageId: text('message_id'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
    /**
     * The pack whose scheduled job wrote this row (its delivered answer): a reply to the
     * message it became is answered by that pack, whatever pack is active (SPEC §8). Null for
     * everything else.
     */
    jobPack: text('job_pack'),
  },
  (t) => [
    index('outbox_status').on(t.status, t.id),
    // A message of the bot's looked up by its id: a reply to it, a reaction on it.
    index('outbox_message').on(t.channel, t.chatId, t.messageId),
  ],
);

/** One row per paid call (model, transcription, vision), successful or not. */
export const usageEvents = sqliteTable(
  'usage_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ts: integer('ts').notNull(),
    day: text('day').notNull(),
    kind: text('kind', { enum: ['llm', 'stt', 'vision', 'search', 'tts'] }).notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    pack: text('pack'),
    chatId: text('chat_id'),
    threadId: text('thread_id'),
    sessionId: text('session_id'),
    turnId: text('turn_id'),
    /** The job whose run made the call (null for a person's turn): `by_job` in /api/usage. */
    jobId: text('job_id'),
    /** Characters spoken, for a `tts` call (priced per million characters). */
    characters: integer('characters').notNull().default(0),
    /**
     * The person the call was made for (SPEC §19; `people.id`): a batch's first sender, a job's
     * creator. Null on rows written before people were kept.
     */
    person: text('person'),
    /** The edge's platform of the turn's conversation (`recent_turns.channel`, SPEC §7). */
    channel: text('channel'),
    inputTokens: integer('input_tokens').notNull().default(0),
    cachedInputTokens: integer('cached_input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    audioSeconds: real('audio_seconds').notNull().default(0),
    images: integer('images').notNull().default(0),
    costUsd: real('cost_usd'),
    priceKnown: integer('price_known', { mode: 'boolean' }).notNull(),
    latencyMs: integer('latency_ms').notNull(),
    ok: integer('ok', { mode: 'boolean' }).notNull(),
    error: text('error'),
    /**
     * Whether the row counts as a call in every view: the call reached the provider and
     * something came back (it succeeded, or it failed or was stopped after usage: tokens,
     * audio or images). A call that failed or was stopped with nothing back keeps its row (the
     * attempt stays visible) but is not "1 call, 0 tokens". Written by the ledger; a column,
     * not an expression over `ok`, so the rollup index below covers it.
     */
    counted: integer('counted', { mode: 'boolean' }).notNull().default(true),
  },
  (t) => [
    // Covers the dashboard's grouped query and the quota gate's daily sums: one pass over
    // the index for a month of calls, no table reads.
    index('usage_events_rollup').on(
      t.day,
      t.pack,
      t.provider,
      t.model,
      t.kind,
      t.inputTokens,
      t.cachedInputTokens,
      t.outputTokens,
      t.costUsd,
      t.priceKnown,
      t.audioSeconds,
      t.images,
      t.counted,
    ),
    index('usage_events_session').on(t.sessionId),
    index('usage_events_turn').on(t.turnId),
    index('usage_events_job').on(t.jobId),
    index('usage_events_person').on(t.person, t.day),
  ],
);

/**
 * Scheduled jobs from pack manifests and the `schedule` tool. `schedule` is a 5-field cron
 * expression (`kind` 'cron', read in SATCHEL_TIMEZONE) or an ISO 8601 date-time with an
 * offset (`kind` 'once': it runs once, then the row is removed).
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    pack: text('pack').notNull(),
    source: text('source', { enum: ['manifest', 'tool'] }).notNull(),
    kind: text('kind', { enum: ['cron', 'once'] })
      .notNull()
      .default('cron'),
    /** `<pack>:<cronId>:<address key>` for a manifest job, so materializing it is idempotent. */
    manifestKey: text('manifest_key'),
    /** The channel of the conversation the job delivers to (an address's `platform`). */
    platform: text('platform').notNull().default('tg'),
    // Every writer sets it; it stays nullable because SQLite cannot add NOT NULL in place.
    chatId: text('chat_id'),
    threadId: text('thread_id'),
    schedule: text('schedule').notNull(),
    skill: text('skill'),
    prompt: text('prompt'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /**
     * Why satchel itself paused the job: `topic_closed` (its forum topic was closed; reopening
     * resumes it), `topic_gone` (Telegram no longer knows the topic) or `idle` (no person wrote
     * in its chat for JOB_IDLE_DAYS; the next message from a person resumes it). Null when it runs, or
     * when the user or the manifest paused it: those stay paused until the user resumes them.
     */
    pausedBy: text('paused_by', { enum: ['topic_closed', 'topic_gone', 'idle', 'removed'] }),
    /**
     * Who created the job (SPEC §19; `people.id`): its runs are booked to them, and pause when
     * the owner removes them. Null for a manifest job and for jobs made before people were kept.
     */
    person: text('person'),
    /** A cron entry's own chat model (`provider:model`), used for its runs instead of the chat's. */
    model: text('model'),
    /**
     * Why the job's runs start tainted (SPEC §17): it was created or changed in a session that
     * had read untrusted content, named by those sources. Null for a clean job.
     */
    taint: text('taint'),
    /** The next due time; null when a cron expression has no future time. */
    nextRunAt: integer('next_run_at'),
    lastRunAt: integer('last_run_at'),
    /** How the last run ended, as logged in `job_run`. */
    lastOutcome: text('last_outcome', { enum: ['delivered', 'silent', 'failed', 'refused'] }),
    /** The due time of a run that was started and not yet acknowledged (the durable claim). */
    runningDueAt: integer('running_due_at'),
    /** How many times the claimed run's turn started; a run interrupted twice is given up. */
    runAttempts: integer('run_attempts').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('jobs_manifest_key').on(t.manifestKey),
    index('jobs_next_run').on(t.enabled, t.nextRunAt),
    index('jobs_chat').on(t.platform, t.chatId, t.threadId),
  ],
);

/**
 * The owner's "Always allow <tool> in <pack>" answers to approval requests (SPEC §17): a
 * call of `tool` in `pack` that would wait for approval runs at once. `/approvals` lists
 * them and `/approvals reset` removes them.
 */
export const toolGrants = sqliteTable(
  'tool_grants',
  {
    pack: text('pack').notNull(),
    tool: text('tool').notNull(),
    grantedAt: integer('granted_at').notNull(),
    /** The home the grant was given for (SPEC §17, §19): `owner`, or a home's key. */
    home: text('home').notNull().default('owner'),
  },
  (t) => [uniqueIndex('tool_grants_home_pack_tool').on(t.home, t.pack, t.tool)],
);

/**
 * What the owner accepted of each MCP server's tools (SPEC §17): a tool's description and
 * input schema as first listed, or as accepted by `satchel pack trust`. A listing that
 * differs from its pin, or a tool with no pin once the server is pinned, is withheld.
 */
export const mcpToolPins = sqliteTable(
  'mcp_tool_pins',
  {
    pack: text('pack').notNull(),
    server: text('server').notNull(),
    tool: text('tool').notNull(),
    description: text('description').notNull(),
    /** The tool's input schema as canonical JSON (keys sorted). */
    inputSchema: text('input_schema').notNull(),
    /**
     * The server marked the tool `readOnlyHint: true`: its calls are `read` and never wait
     * for approval, so gaining the mark is a change the owner trusts like any other.
     */
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
    pinnedAt: integer('pinned_at').notNull(),
  },
  (t) => [uniqueIndex('mcp_tool_pins_key').on(t.pack, t.server, t.tool)],
);

/**
 * The web chat's conversations (SPEC §16), the web edge's own: each is the address
 * `{platform: 'web', chatId: id}`, so it has its own pack, session, history and jobs. The id
 * is the edge's (`w-…`), never the owner's Telegram id, so changing ALLOWED_USER_IDS keeps
 * them. `titled` says the owner named it; until then the first line typed names it, and the
 * model's title after the first exchange replaces that line (migration 0019).
 */
export const webConversations = sqliteTable(
  'web_conversations',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    titled: integer('titled', { mode: 'boolean' }).notNull().default(false),
    /** The model wrote its title after the first exchange: it writes none again. */
    modelTitled: integer('model_titled', { mode: 'boolean' }).notNull().default(false),
    /** Pinned by the owner: listed before the others. */
    pinned: integer('pinned', { mode: 'boolean' }).notNull().default(false),
    /**
     * When the owner deleted it: hidden at once, emptied once the undo lapsed. The row stays
     * (title only), so the ledger's rows are still named by it.
     */
    deletedAt: integer('deleted_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('web_conversations_updated').on(t.updatedAt)],
);

/**
 * The web chat's failed answers (SPEC §16): the error line a turn answered instead, kept so a
 * reload shows it (with its Retry) where it was. The session keeps no trace of it: the model
 * never reads an apology as its own words. `source`: the failed input's origin key.
 */
export const webFailures = sqliteTable(
  'web_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    conversation: text('conversation').notNull(),
    source: text('source').notNull(),
    text: text('text').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('web_failures_conversation').on(t.conversation, t.createdAt)],
);

/**
 * Pairing codes given to strangers in private chats (SPEC §18): the owner's `/pair CODE` or
 * `satchel pair CODE` lets the stranger in. A code is valid for an hour; at most 3 pending
 * per stranger and 20 in all.
 */
export const pairingCodes = sqliteTable(
  'pairing_codes',
  {
    code: text('code').primaryKey(),
    /** The channel of the stranger's private chat (an address's `platform`). */
    platform: text('platform').notNull(),
    userId: text('user_id').notNull(),
    chatId: text('chat_id').notNull(),
    /** How the stranger is called on the channel (name, @username), for the owner's list. */
    name: text('name'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('pairing_codes_user').on(t.platform, t.userId),
    index('pairing_codes_expiry').on(t.expiresAt),
  ],
);

/** Users the owner paired (SPEC §18): allowed as if listed in ALLOWED_USER_IDS. */
export const pairedUsers = sqliteTable(
  'paired_users',
  {
    platform: text('platform').notNull(),
    userId: text('user_id').notNull(),
    chatId: text('chat_id').notNull(),
    name: text('name'),
    pairedAt: integer('paired_at').notNull(),
  },
  (t) => [uniqueIndex('paired_users_key').on(t.platform, t.userId)],
);

/**
 * Everyone who talks to satchel (SPEC §19): the owner (`id` 'owner'), the people listed in the
 * allowlist and those paired. `id` is how `/people` lists them; the edges' ids of a person are
 * in `person_ids`.
 */
export const people = sqliteTable('people', {
  id: text('id').primaryKey(),
  /** How the channel calls them. */
  name: text('name').notNull(),
  via: text('via', { enum: ['owner', 'listed', 'paired'] }).notNull(),
  /** `/people cap ID USD`: this person's daily spend cap; null follows PERSON_DAILY_USD. */
  dailyUsd: real('daily_usd'),
  createdAt: integer('created_at').notNull(),
  lastMessageAt: integer('last_message_at'),
  /** `/people remove ID`: their jobs pause; their homes stay until `/people purge ID`. */
  removedAt: integer('removed_at'),
  /**
   * On the owner's row: the upgrade to people found earlier conversations, so `/people` says
   * once that what others wrote before stayed in the owner's home.
   */
  upgradeNote: integer('upgrade_note', { mode: 'boolean' }).notNull().default(false),
});

/**
 * A person's ids on the edges (SPEC §19): the sender id on `platform`, as the edge gave it (the
 * core never reads it). The owner's is recorded once, at the first start.
 */
export const personIds = sqliteTable(
  'person_ids',
  {
    platform: text('platform').notNull(),
    senderId: text('sender_id').notNull(),
    person: text('person').notNull(),
    /**
     * Their private chat with the bot on `platform`, once they wrote there: where the owner is
     * asked to approve an MCP call made from another person's chat (SPEC §17).
     */
    chatId: text('chat_id'),
  },
  (t) => [
    uniqueIndex('person_ids_key').on(t.platform, t.senderId),
    index('person_ids_person').on(t.person),
  ],
);

/**
 * Whose home a conversation uses (SPEC §19), per chat (`thread_id` '' for the whole chat) or
 * per topic: `owner`, `person` (`ref`: the person), `group` (`ref`: the group's folder) or
 * `legacy` (bound before people were kept: a group keeps the owner's home, a private chat
 * becomes its person's at their next message).
 */
export const chatHomes = sqliteTable(
  'chat_homes',
  {
    platform: text('platform').notNull(),
    chatId: text('chat_id').notNull(),
    threadId: text('thread_id').notNull().default(''),
    kind: text('kind', { enum: ['owner', 'person', 'group', 'legacy'] }).notNull(),
    ref: text('ref'),
  },
  (t) => [uniqueIndex('chat_homes_key').on(t.platform, t.chatId, t.threadId)],
);

/**
 * The keyboards of pack actions (SPEC §3), one row per message's keyboard: a button's data
 * (`act:<id>:<n>`) names the row and its `n`th button, whose action and parameters are kept
 * here, so they need not fit Telegram's 64 bytes and a press works after a restart. The pack
 * and home it acts on, and the chat (and topic, '' for none) where it may be pressed. A row
 * goes when a press replaces its message's keyboard, or after 90 days.
 */
export const actionKeyboards = sqliteTable(
  'action_keyboards',
  {
    id: text('id').primaryKey(),
    pack: text('pack').notNull(),
    home: text('home').notNull(),
    platform: text('platform').notNull(),
    chatId: text('chat_id').notNull(),
    threadId: text('thread_id').notNull().default(''),
    /** JSON: `[{label, action, params}]`, in the order of the buttons' `n`. */
    buttons: text('buttons').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('action_keyboards_created').on(t.createdAt)],
);
