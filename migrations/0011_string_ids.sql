-- string_ids: chat, thread and message ids are the channel's own strings (SPEC §16). The id
-- columns of routes, jobs, outbox and usage_events become TEXT holding the same digits
-- (TEXT affinity turns the stored integers into their decimal text, "-1001234567890" too),
-- and the ids inside stored JSON follow. The terminal's chat, `local:1` before, is `local`.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_conversation_routes` (
	`address` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`chat_id` text NOT NULL,
	`thread_id` text,
	`active_pack` text,
	`session_id` text,
	`updated_at` integer NOT NULL,
	`model` text,
	`usage_footer` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_conversation_routes`("address", "platform", "chat_id", "thread_id", "active_pack", "session_id", "updated_at", "model", "usage_footer") SELECT "address", "platform", "chat_id", "thread_id", "active_pack", "session_id", "updated_at", "model", "usage_footer" FROM `conversation_routes`;--> statement-breakpoint
DROP TABLE `conversation_routes`;--> statement-breakpoint
ALTER TABLE `__new_conversation_routes` RENAME TO `conversation_routes`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`pack` text NOT NULL,
	`source` text NOT NULL,
	`kind` text DEFAULT 'cron' NOT NULL,
	`manifest_key` text,
	`platform` text DEFAULT 'tg' NOT NULL,
	`chat_id` text,
	`thread_id` text,
	`schedule` text NOT NULL,
	`skill` text,
	`prompt` text,
	`enabled` integer DEFAULT true NOT NULL,
	`paused_by` text,
	`next_run_at` integer,
	`last_run_at` integer,
	`last_outcome` text,
	`running_due_at` integer,
	`run_attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_jobs`("id", "pack", "source", "kind", "manifest_key", "platform", "chat_id", "thread_id", "schedule", "skill", "prompt", "enabled", "paused_by", "next_run_at", "last_run_at", "last_outcome", "running_due_at", "run_attempts", "created_at") SELECT "id", "pack", "source", "kind", "manifest_key", "platform", "chat_id", "thread_id", "schedule", "skill", "prompt", "enabled", "paused_by", "next_run_at", "last_run_at", "last_outcome", "running_due_at", "run_attempts", "created_at" FROM `jobs`;--> statement-breakpoint
DROP TABLE `jobs`;--> statement-breakpoint
ALTER TABLE `__new_jobs` RENAME TO `jobs`;--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_manifest_key` ON `jobs` (`manifest_key`);--> statement-breakpoint
CREATE INDEX `jobs_next_run` ON `jobs` (`enabled`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `jobs_chat` ON `jobs` (`platform`,`chat_id`,`thread_id`);--> statement-breakpoint
CREATE TABLE `__new_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel` text DEFAULT 'tg' NOT NULL,
	`chat_id` text NOT NULL,
	`thread_id` text,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`message_id` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_outbox`("id", "channel", "chat_id", "thread_id", "kind", "payload", "status", "attempts", "message_id", "last_error", "created_at", "sent_at") SELECT "id", "channel", "chat_id", "thread_id", "kind", "payload", "status", "attempts", "message_id", "last_error", "created_at", "sent_at" FROM `outbox`;--> statement-breakpoint
DROP TABLE `outbox`;--> statement-breakpoint
ALTER TABLE `__new_outbox` RENAME TO `outbox`;--> statement-breakpoint
CREATE INDEX `outbox_status` ON `outbox` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `__new_usage_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`day` text NOT NULL,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`pack` text,
	`chat_id` text,
	`thread_id` text,
	`session_id` text,
	`turn_id` text,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`cached_input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`audio_seconds` real DEFAULT 0 NOT NULL,
	`images` integer DEFAULT 0 NOT NULL,
	`cost_usd` real,
	`price_known` integer NOT NULL,
	`latency_ms` integer NOT NULL,
	`ok` integer NOT NULL,
	`error` text,
	`counted` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_usage_events`("id", "ts", "day", "kind", "provider", "model", "pack", "chat_id", "thread_id", "session_id", "turn_id", "input_tokens", "cached_input_tokens", "output_tokens", "audio_seconds", "images", "cost_usd", "price_known", "latency_ms", "ok", "error", "counted") SELECT "id", "ts", "day", "kind", "provider", "model", "pack", "chat_id", "thread_id", "session_id", "turn_id", "input_tokens", "cached_input_tokens", "output_tokens", "audio_seconds", "images", "cost_usd", "price_known", "latency_ms", "ok", "error", "counted" FROM `usage_events`;--> statement-breakpoint
DROP TABLE `usage_events`;--> statement-breakpoint
ALTER TABLE `__new_usage_events` RENAME TO `usage_events`;--> statement-breakpoint
CREATE INDEX `usage_events_rollup` ON `usage_events` (`day`,`pack`,`provider`,`model`,`kind`,`input_tokens`,`cached_input_tokens`,`output_tokens`,`cost_usd`,`price_known`,`audio_seconds`,`images`,`counted`);--> statement-breakpoint
CREATE INDEX `usage_events_session` ON `usage_events` (`session_id`);--> statement-breakpoint
CREATE INDEX `usage_events_turn` ON `usage_events` (`turn_id`);--> statement-breakpoint
-- Ids inside stored payloads: an edit's or deletion's message id in the outbox, and the ids of
-- the web chat's stored input (replayed after a restart).
UPDATE `outbox` SET `payload` = json_set(`payload`, '$.messageId', CAST(json_extract(`payload`, '$.messageId') AS TEXT))
WHERE CASE WHEN json_valid(`payload`) THEN json_type(`payload`, '$.messageId') END = 'integer';
--> statement-breakpoint
UPDATE `edge_inbox` SET `payload` = json_set(`payload`, '$.messageId', CAST(json_extract(`payload`, '$.messageId') AS TEXT))
WHERE CASE WHEN json_valid(`payload`) THEN json_type(`payload`, '$.messageId') END = 'integer';
--> statement-breakpoint
UPDATE `edge_inbox` SET `payload` = json_set(`payload`, '$.senderId', CAST(json_extract(`payload`, '$.senderId') AS TEXT))
WHERE CASE WHEN json_valid(`payload`) THEN json_type(`payload`, '$.senderId') END = 'integer';
--> statement-breakpoint
UPDATE `edge_inbox` SET `payload` = json_set(`payload`, '$.address.chatId', CAST(json_extract(`payload`, '$.address.chatId') AS TEXT))
WHERE CASE WHEN json_valid(`payload`) THEN json_type(`payload`, '$.address.chatId') END = 'integer';
--> statement-breakpoint
UPDATE `edge_inbox` SET `payload` = json_set(`payload`, '$.address.threadId', CAST(json_extract(`payload`, '$.address.threadId') AS TEXT))
WHERE CASE WHEN json_valid(`payload`) THEN json_type(`payload`, '$.address.threadId') END = 'integer';
--> statement-breakpoint
-- The terminal's one conversation moves from chat 1 to chat `local`, with its route, sessions
-- (chat `local:1:<pack>`, a manifest job's `job:<pack>:<cron>:local:1`), jobs, unsent rows and
-- ledger rows. Its messages' search scope names the session key: taken out of the index
-- under the old key and put back under the new one (as store/chat-moves.ts does).
INSERT INTO `messages_search` (`messages_search`, `rowid`, `content`, `scope`)
  SELECT 'delete', m.`id`, m.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
  FROM `messages` m JOIN `sessions` s ON s.`id` = m.`session_id`
  WHERE s.`address` = 'local:1' AND m.`role` IN ('user', 'assistant') AND m.`content` != '';
--> statement-breakpoint
UPDATE `sessions` SET `key` = 'local:local:' || substr(`key`, 9) WHERE `key` LIKE 'local:1:%';
--> statement-breakpoint
UPDATE `sessions` SET `key` = substr(`key`, 1, length(`key`) - 7) || 'local:local'
WHERE `key` LIKE 'job:%:local:1';
--> statement-breakpoint
UPDATE `sessions` SET `address` = 'local:local' WHERE `address` = 'local:1';
--> statement-breakpoint
INSERT INTO `messages_search` (`rowid`, `content`, `scope`)
  SELECT m.`id`, m.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
  FROM `messages` m JOIN `sessions` s ON s.`id` = m.`session_id`
  WHERE s.`address` = 'local:local' AND m.`role` IN ('user', 'assistant') AND m.`content` != '';
--> statement-breakpoint
UPDATE `conversation_routes` SET `address` = 'local:local', `chat_id` = 'local' WHERE `address` = 'local:1';
--> statement-breakpoint
UPDATE `jobs` SET `chat_id` = 'local',
  `manifest_key` = CASE WHEN `manifest_key` LIKE '%:local:1'
    THEN substr(`manifest_key`, 1, length(`manifest_key`) - 7) || 'local:local' ELSE `manifest_key` END
WHERE `platform` = 'local' AND `chat_id` = '1';
--> statement-breakpoint
UPDATE `outbox` SET `chat_id` = 'local' WHERE `channel` = 'local' AND `chat_id` = '1';
--> statement-breakpoint
UPDATE `usage_events` SET `chat_id` = 'local'
WHERE `chat_id` = '1' AND `session_id` IN (SELECT `id` FROM `sessions` WHERE `address` = 'local:local');
