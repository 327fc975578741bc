-- The mail outbox (src/engines/mail): messages to the service's own customers, rendered once (raw MIME) and sent from
-- the queue; permanent failures suppress optional mail to that recipient.
CREATE TABLE `mail_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`raw` text NOT NULL,
	`optional` integer NOT NULL,
	`dedupe_key` text,
	`status` text NOT NULL,
	`detail` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_messages_dedupe_key_unique` ON `mail_messages` (`dedupe_key`);
--> statement-breakpoint
CREATE INDEX `mail_messages_pending` ON `mail_messages` (`status`, `due_at`);
--> statement-breakpoint
CREATE INDEX `mail_messages_created` ON `mail_messages` (`created_at`);
--> statement-breakpoint
CREATE INDEX `mail_messages_hourly` ON `mail_messages` (`account_id`, `kind`, `recipient`, `created_at`);
--> statement-breakpoint
CREATE TABLE `mail_suppressions` (
	`recipient` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
-- Monitors of every product: mail each posted run to the account's members when asked (default off).
ALTER TABLE `monitors` ADD `alert_emails` integer DEFAULT false NOT NULL;
--> statement-breakpoint
-- Links sent by mail: random token (SHA-256 stored), expiring, single-use, bound to the recipient.
CREATE TABLE `mail_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`account_id` text NOT NULL,
	`recipient` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
