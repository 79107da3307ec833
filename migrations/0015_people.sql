-- people: everyone their own home, the owner in charge (SPEC §19). Every existing row stays
-- where it is: the owner's homes keep their folders, chats bound before become `legacy` (a group
-- keeps the owner's home; a private chat of someone else starts an empty home of theirs), and
-- `/people` says once that what others wrote before stayed in the owner's home.
CREATE TABLE `chat_homes` (
	`platform` text NOT NULL,
	`chat_id` text NOT NULL,
	`thread_id` text DEFAULT '' NOT NULL,
	`kind` text NOT NULL,
	`ref` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_homes_key` ON `chat_homes` (`platform`,`chat_id`,`thread_id`);--> statement-breakpoint
CREATE TABLE `people` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`via` text NOT NULL,
	`daily_usd` real,
	`created_at` integer NOT NULL,
	`last_message_at` integer,
	`removed_at` integer,
	`upgrade_note` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE `person_ids` (
	`platform` text NOT NULL,
	`sender_id` text NOT NULL,
	`person` text NOT NULL,
	`chat_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `person_ids_key` ON `person_ids` (`platform`,`sender_id`);--> statement-breakpoint
CREATE INDEX `person_ids_person` ON `person_ids` (`person`);--> statement-breakpoint
DROP INDEX `tool_grants_pack_tool`;--> statement-breakpoint
ALTER TABLE `tool_grants` ADD `home` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `tool_grants_home_pack_tool` ON `tool_grants` (`home`,`pack`,`tool`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `person` text;--> statement-breakpoint
ALTER TABLE `usage_events` ADD `person` text;--> statement-breakpoint
ALTER TABLE `usage_events` ADD `channel` text;--> statement-breakpoint
CREATE INDEX `usage_events_person` ON `usage_events` (`person`,`day`);--> statement-breakpoint
INSERT OR IGNORE INTO `chat_homes` (`platform`, `chat_id`, `thread_id`, `kind`)
  SELECT DISTINCT `platform`, `chat_id`, '', 'legacy' FROM `conversation_routes`;--> statement-breakpoint
INSERT OR IGNORE INTO `chat_homes` (`platform`, `chat_id`, `thread_id`, `kind`)
  SELECT DISTINCT `platform`, `chat_id`, '', 'legacy' FROM `jobs` WHERE `chat_id` IS NOT NULL;--> statement-breakpoint
INSERT INTO `people` (`id`, `name`, `via`, `created_at`, `upgrade_note`)
  SELECT 'owner', 'owner', 'owner', coalesce((SELECT min(`created_at`) FROM `sessions`), 0), 1
  WHERE EXISTS (SELECT 1 FROM `conversation_routes`);--> statement-breakpoint
UPDATE `usage_events` SET `channel` = (
  SELECT substr(`s`.`address`, 1, instr(`s`.`address`, ':') - 1) FROM `sessions` `s`
  WHERE `s`.`id` = `usage_events`.`session_id`
) WHERE `session_id` IS NOT NULL;
