-- action keyboards (SPEC §3): what each button of a pack action's keyboard runs, kept here so a
-- button's data stays short (Telegram takes 64 bytes) and a press works after a restart.
CREATE TABLE `action_keyboards` (
	`id` text PRIMARY KEY NOT NULL,
	`pack` text NOT NULL,
	`home` text NOT NULL,
	`platform` text NOT NULL,
	`chat_id` text NOT NULL,
	`thread_id` text DEFAULT '' NOT NULL,
	`buttons` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `action_keyboards_created` ON `action_keyboards` (`created_at`);