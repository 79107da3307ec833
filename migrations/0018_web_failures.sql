-- web_failures: the web chat's failed answers (SPEC §16), so a reload shows the error line and its Retry.
CREATE TABLE `web_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation` text NOT NULL,
	`source` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `web_failures_conversation` ON `web_failures` (`conversation`,`created_at`);