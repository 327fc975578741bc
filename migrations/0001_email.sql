CREATE TABLE `email_answers` (
	`account_id` text NOT NULL,
	`normalized_email` text NOT NULL,
	`result` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `normalized_email`)
);
--> statement-breakpoint
CREATE TABLE `email_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`request_id` text NOT NULL,
	`email` text NOT NULL,
	`normalized_email` text NOT NULL,
	`deliverable` text NOT NULL,
	`reason` text,
	`credits_used` integer NOT NULL,
	`cache_hit` integer NOT NULL,
	`suppressed` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_history_account` ON `email_history` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `email_suppressions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`reason` text NOT NULL,
	`source` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_suppressions_account_email` ON `email_suppressions` (`account_id`,`email`);--> statement-breakpoint
CREATE TABLE `mailbox_answers` (
	`email` text PRIMARY KEY NOT NULL,
	`domain` text NOT NULL,
	`outcome` text NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mailbox_answers_domain` ON `mailbox_answers` (`domain`,`checked_at`);