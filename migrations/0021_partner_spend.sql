-- Partner checks (docs/partners.md): partner calls each account caused per UTC day, and the operator's own daily
-- ceiling for an account (absent: the PARTNER_DAILY_CALLS default); monitors keep their product's own options (phone:
-- `network`), read back as the run's `extra`.
CREATE TABLE `partner_spend` (
	`account_id` text NOT NULL,
	`day` text NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`account_id`, `day`)
);
--> statement-breakpoint
ALTER TABLE `monitors` ADD `options` text;
--> statement-breakpoint
CREATE TABLE `partner_ceilings` (
	`account_id` text PRIMARY KEY NOT NULL,
	`daily_calls` integer NOT NULL,
	`updated_at` integer NOT NULL
);
