-- trust_sessions: taint lasts the session (SPEC §17) — when a session first read untrusted content
-- and from which sources, and why a job's runs start tainted.
ALTER TABLE `jobs` ADD `taint` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `tainted_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `taint_sources` text;