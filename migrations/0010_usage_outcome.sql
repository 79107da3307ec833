DROP INDEX `usage_events_rollup`;--> statement-breakpoint
ALTER TABLE `usage_events` ADD `counted` integer DEFAULT true NOT NULL;--> statement-breakpoint
UPDATE `usage_events` SET `counted` = false WHERE `ok` = 0 AND `input_tokens` + `output_tokens` + `audio_seconds` + `images` = 0;--> statement-breakpoint
CREATE INDEX `usage_events_rollup` ON `usage_events` (`day`,`pack`,`provider`,`model`,`kind`,`input_tokens`,`cached_input_tokens`,`output_tokens`,`cost_usd`,`price_known`,`audio_seconds`,`images`,`counted`);
