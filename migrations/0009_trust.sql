CREATE TABLE `mcp_tool_pins` (
	`pack` text NOT NULL,
	`server` text NOT NULL,
	`tool` text NOT NULL,
	`description` text NOT NULL,
	`input_schema` text NOT NULL,
	`read_only` integer DEFAULT false NOT NULL,
	`pinned_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_tool_pins_key` ON `mcp_tool_pins` (`pack`,`server`,`tool`);--> statement-breakpoint
CREATE TABLE `tool_grants` (
	`pack` text NOT NULL,
	`tool` text NOT NULL,
	`granted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tool_grants_pack_tool` ON `tool_grants` (`pack`,`tool`);