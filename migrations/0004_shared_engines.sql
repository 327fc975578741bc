-- Shared engines: every product's repeats, suppressions, history, feedback, monitors and webhook deliveries in
-- tables keyed by product. Existing email and entity rows are copied over (ids kept), then the old tables go.
--> statement-breakpoint
CREATE TABLE `feedback` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`product` text NOT NULL,
	`key` text NOT NULL,
	`outcome` text NOT NULL,
	`detail` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `feedback_account` ON `feedback` (`account_id`,`product`,`created_at`);
--> statement-breakpoint
CREATE INDEX `feedback_key` ON `feedback` (`account_id`,`product`,`key`);
--> statement-breakpoint
CREATE TABLE `history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`product` text NOT NULL,
	`request_id` text NOT NULL,
	`value` text NOT NULL,
	`key` text NOT NULL,
	`verdict` text NOT NULL,
	`reason` text,
	`credits_used` integer NOT NULL,
	`cache_hit` integer NOT NULL,
	`suppressed` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `history_account` ON `history` (`account_id`,`product`,`created_at`);
--> statement-breakpoint
CREATE TABLE `monitor_baselines` (
	`monitor_id` integer NOT NULL,
	`entry_key` text NOT NULL,
	`answer` text NOT NULL,
	`recorded_at` integer NOT NULL,
	PRIMARY KEY(`monitor_id`, `entry_key`)
);
--> statement-breakpoint
CREATE TABLE `monitors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text NOT NULL,
	`product` text NOT NULL,
	`name` text NOT NULL,
	`entries` text NOT NULL,
	`cadence` text NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`webhook_events` text DEFAULT 'changes' NOT NULL,
	`last_run_at` integer,
	`next_run_at` integer NOT NULL,
	`last_summary` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `monitors_account` ON `monitors` (`account_id`,`product`);
--> statement-breakpoint
CREATE INDEX `monitors_due` ON `monitors` (`next_run_at`);
--> statement-breakpoint
CREATE TABLE `repeats` (
	`account_id` text NOT NULL,
	`product` text NOT NULL,
	`key` text NOT NULL,
	`result` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `product`, `key`)
);
--> statement-breakpoint
CREATE INDEX `repeats_created` ON `repeats` (`created_at`);
--> statement-breakpoint
CREATE TABLE `suppressions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`product` text NOT NULL,
	`key` text NOT NULL,
	`reason` text NOT NULL,
	`source` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `suppressions_account_key` ON `suppressions` (`account_id`,`product`,`key`);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`owner` text NOT NULL,
	`owner_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`detail` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_owner` ON `webhook_deliveries` (`owner`,`owner_id`,`id`);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending` ON `webhook_deliveries` (`status`,`updated_at`);
--> statement-breakpoint
INSERT INTO `repeats` (`account_id`, `product`, `key`, `result`, `created_at`)
  SELECT `account_id`,
    CASE WHEN `normalized_email` LIKE 'entity:%' THEN 'entity' ELSE 'email' END,
    CASE WHEN `normalized_email` LIKE 'entity:%' THEN substr(`normalized_email`, 8) ELSE `normalized_email` END,
    `result`, `created_at`
  FROM `email_answers`;
--> statement-breakpoint
INSERT INTO `suppressions` (`id`, `account_id`, `product`, `key`, `reason`, `source`, `result`, `created_at`)
  SELECT `id`, `account_id`, 'email', `email`, `reason`, `source`, `result`, `created_at` FROM `email_suppressions`;
--> statement-breakpoint
INSERT INTO `history` (`id`, `account_id`, `product`, `request_id`, `value`, `key`, `verdict`, `reason`, `credits_used`, `cache_hit`, `suppressed`, `created_at`)
  SELECT `id`, `account_id`, 'email', `request_id`, `email`, `normalized_email`, `deliverable`, `reason`, `credits_used`, `cache_hit`, `suppressed`, `created_at`
  FROM `email_history`;
--> statement-breakpoint
INSERT INTO `monitors` (`id`, `account_id`, `key_id`, `product`, `name`, `entries`, `cadence`, `webhook_url`, `webhook_secret`, `webhook_events`, `last_run_at`, `next_run_at`, `last_summary`, `created_at`)
  SELECT `id`, `account_id`, `key_id`, 'entity', `name`, `identifiers`, `cadence`, `webhook_url`, `webhook_secret`, `webhook_events`, `last_run_at`, `next_run_at`, `last_summary`, `created_at`
  FROM `entity_monitors`;
--> statement-breakpoint
INSERT INTO `monitor_baselines` (`monitor_id`, `entry_key`, `answer`, `recorded_at`)
  SELECT `monitor_id`, `entry_key`, `answer`, `recorded_at` FROM `entity_baselines`;
--> statement-breakpoint
INSERT INTO `webhook_deliveries` (`owner`, `owner_id`, `event`, `url`, `secret`, `body`, `status`, `detail`, `attempts`, `created_at`, `updated_at`)
  SELECT 'job', CAST(`id` AS TEXT), 'bulk_' || `product` || '_job.finished', `webhook_url`, `webhook_secret`, `webhook_body`, `webhook_status`, `webhook_detail`,
    0, coalesce(`finished_at`, `updated_at`), `updated_at`
  FROM `bulk_jobs` WHERE `webhook_body` IS NOT NULL AND `webhook_status` IS NOT NULL AND `webhook_url` IS NOT NULL AND `webhook_secret` IS NOT NULL;
--> statement-breakpoint
-- A monitor's old record kept its status only (the body travelled in the queue message), so the outbox keeps the
-- status and detail; a delivery that was still pending is re-sent by nothing and is marked failed.
INSERT INTO `webhook_deliveries` (`owner`, `owner_id`, `event`, `url`, `secret`, `body`, `status`, `detail`, `attempts`, `created_at`, `updated_at`)
  SELECT 'monitor', CAST(`id` AS TEXT), 'entity_monitor.run', `webhook_url`, `webhook_secret`, '',
    CASE `webhook_status` WHEN 'pending' THEN 'failed' ELSE `webhook_status` END,
    CASE `webhook_status` WHEN 'pending' THEN 'Interrupted by an upgrade' ELSE `webhook_detail` END,
    0, coalesce(`last_run_at`, `created_at`), coalesce(`last_run_at`, `created_at`)
  FROM `entity_monitors` WHERE `webhook_status` IS NOT NULL AND `webhook_url` IS NOT NULL AND `webhook_secret` IS NOT NULL;
--> statement-breakpoint
DROP TABLE `email_answers`;
--> statement-breakpoint
DROP TABLE `email_suppressions`;
--> statement-breakpoint
DROP TABLE `email_history`;
--> statement-breakpoint
DROP TABLE `entity_monitors`;
--> statement-breakpoint
DROP TABLE `entity_baselines`;
--> statement-breakpoint
ALTER TABLE `bulk_jobs` DROP COLUMN `webhook_status`;
--> statement-breakpoint
ALTER TABLE `bulk_jobs` DROP COLUMN `webhook_detail`;
--> statement-breakpoint
ALTER TABLE `bulk_jobs` DROP COLUMN `webhook_body`;
