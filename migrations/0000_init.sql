CREATE TABLE `conversation_routes` (
	`address` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`chat_id` integer NOT NULL,
	`thread_id` integer,
	`active_pack` text,
	`session_id` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `inbound_updates` (
	`update_id` integer PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`received_at` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`done_at` integer
);
--> statement-breakpoint
CREATE INDEX `inbound_updates_status` ON `inbound_updates` (`status`,`received_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`pack` text NOT NULL,
	`source` text NOT NULL,
	`chat_id` integer,
	`thread_id` integer,
	`schedule` text NOT NULL,
	`skill` text,
	`prompt` text,
	`enabled` integer DEFAULT true NOT NULL,
	`next_run_at` integer,
	`last_run_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`turn_id` text NOT NULL,
	`role` text NOT NULL,
	`content` text NOT NULL,
	`tool_calls` text,
	`tool_call_id` text,
	`source_key` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `messages_session` ON `messages` (`session_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_source_key` ON `messages` (`source_key`) WHERE source_key IS NOT NULL;--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chat_id` integer NOT NULL,
	`thread_id` integer,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`message_id` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_status` ON `outbox` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`pack` text NOT NULL,
	`address` text NOT NULL,
	`kind` text DEFAULT 'chat' NOT NULL,
	`summary` text,
	`created_at` integer NOT NULL,
	`closed_at` integer
);
--> statement-breakpoint
CREATE INDEX `sessions_key` ON `sessions` (`key`,`created_at`);--> statement-breakpoint
CREATE TABLE `usage_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`day` text NOT NULL,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`pack` text,
	`chat_id` integer,
	`thread_id` integer,
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
	`error` text
);
--> statement-breakpoint
CREATE INDEX `usage_events_day` ON `usage_events` (`day`);--> statement-breakpoint
CREATE INDEX `usage_events_session` ON `usage_events` (`session_id`);