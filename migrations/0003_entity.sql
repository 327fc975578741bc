CREATE TABLE `entity_baselines` (
	`monitor_id` integer NOT NULL,
	`entry_key` text NOT NULL,
	`answer` text NOT NULL,
	`recorded_at` integer NOT NULL,
	PRIMARY KEY(`monitor_id`, `entry_key`)
);
--> statement-breakpoint
CREATE TABLE `entity_monitors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text NOT NULL,
	`name` text NOT NULL,
	`identifiers` text NOT NULL,
	`cadence` text NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`webhook_events` text DEFAULT 'changes' NOT NULL,
	`webhook_status` text,
	`webhook_detail` text,
	`last_run_at` integer,
	`next_run_at` integer NOT NULL,
	`last_summary` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `entity_monitors_account` ON `entity_monitors` (`account_id`);--> statement-breakpoint
CREATE INDEX `entity_monitors_due` ON `entity_monitors` (`next_run_at`);--> statement-breakpoint
CREATE TABLE `register_entities` (
	`register` text NOT NULL,
	`identifier` text NOT NULL,
	`name` text,
	`status` text NOT NULL,
	`status_detail` text,
	`country` text,
	`registration_status` text,
	`linked_register` text,
	`linked_identifier` text,
	PRIMARY KEY(`register`, `identifier`)
);
