-- job_chat: jobs speak in the chat (SPEC §8) — which pack's job wrote an outbox row, so a reply to
-- the message it became is answered by that pack; and the bot's messages found by their id.
ALTER TABLE `outbox` ADD `job_pack` text;--> statement-breakpoint
CREATE INDEX `outbox_message` ON `outbox` (`channel`,`chat_id`,`message_id`);