ALTER TABLE `conversation_routes` ADD `model` text;--> statement-breakpoint
ALTER TABLE `conversation_routes` ADD `usage_footer` integer DEFAULT false NOT NULL;