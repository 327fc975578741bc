-- How many values a run put on the account's suppression list (an undeliverable email verdict adds its address, as
-- the spec says): the run's page says so, with the link to the list.
ALTER TABLE `bulk_jobs` ADD `suppressed_added` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- A run's number within its account (the dashboard's "Bulk run #1"): `id` counts runs of every account, so an
-- account's first run could read #2. Assigned when the run is created (src/engines/bulk/create.ts); runs made before
-- this column are numbered in the order they were made.
ALTER TABLE `bulk_jobs` ADD `account_run` integer;
--> statement-breakpoint
UPDATE `bulk_jobs` SET `account_run` = (SELECT COUNT(*) FROM `bulk_jobs` AS `b` WHERE `b`.`account_id` = `bulk_jobs`.`account_id` AND `b`.`id` <= `bulk_jobs`.`id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `bulk_jobs_account_run` ON `bulk_jobs` (`account_id`, `account_run`);
