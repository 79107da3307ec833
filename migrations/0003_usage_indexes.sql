DROP INDEX `usage_events_day`;--> statement-breakpoint
CREATE INDEX `usage_events_rollup` ON `usage_events` (`day`,`pack`,`provider`,`model`,`kind`,`input_tokens`,`output_tokens`,`cost_usd`,`price_known`,`audio_seconds`,`images`);--> statement-breakpoint
CREATE INDEX `usage_events_turn` ON `usage_events` (`turn_id`);