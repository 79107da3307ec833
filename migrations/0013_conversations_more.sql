-- conversations_more: the storage of SPEC §18 — pairing codes and paired users, per-chat /voice
-- and /queue, when a person last wrote (jobs pause after JOB_IDLE_DAYS), a cron entry's own
-- model, and the job and spoken characters of each ledger row (`by_job`, kind `tts`).
CREATE TABLE `paired_users` (
	`platform` text NOT NULL,
	`user_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`name` text,
	`paired_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `paired_users_key` ON `paired_users` (`platform`,`user_id`);--> statement-breakpoint
CREATE TABLE `pairing_codes` (
	`code` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`user_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`name` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pairing_codes_user` ON `pairing_codes` (`platform`,`user_id`);--> statement-breakpoint
CREATE INDEX `pairing_codes_expiry` ON `pairing_codes` (`expires_at`);--> statement-breakpoint
ALTER TABLE `conversation_routes` ADD `voice_reply` text;--> statement-breakpoint
ALTER TABLE `conversation_routes` ADD `queue_mode` text;--> statement-breakpoint
ALTER TABLE `conversation_routes` ADD `last_person_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `model` text;--> statement-breakpoint
ALTER TABLE `usage_events` ADD `job_id` text;--> statement-breakpoint
ALTER TABLE `usage_events` ADD `characters` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `usage_events_job` ON `usage_events` (`job_id`);