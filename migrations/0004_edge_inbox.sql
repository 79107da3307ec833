CREATE TABLE `edge_inbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`platform` text NOT NULL,
	`key` text NOT NULL,
	`payload` text NOT NULL,
	`received_at` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`done_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `edge_inbox_key` ON `edge_inbox` (`platform`,`key`);--> statement-breakpoint
CREATE INDEX `edge_inbox_pending` ON `edge_inbox` (`platform`,`status`,`received_at`);