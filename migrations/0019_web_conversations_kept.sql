-- web_conversations_kept: a web conversation's pin, whether the model wrote its title, and when
-- the owner deleted it (the row stays with its title, so the ledger's rows keep their name).
ALTER TABLE `web_conversations` ADD `model_titled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `web_conversations` ADD `pinned` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `web_conversations` ADD `deleted_at` integer;