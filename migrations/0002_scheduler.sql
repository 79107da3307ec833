ALTER TABLE `jobs` ADD `kind` text DEFAULT 'cron' NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `manifest_key` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `platform` text DEFAULT 'tg' NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `last_outcome` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `running_due_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `run_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_manifest_key` ON `jobs` (`manifest_key`);--> statement-breakpoint
CREATE INDEX `jobs_next_run` ON `jobs` (`enabled`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `jobs_chat` ON `jobs` (`platform`,`chat_id`,`thread_id`);--> statement-breakpoint
ALTER TABLE `outbox` ADD `channel` text DEFAULT 'tg' NOT NULL;