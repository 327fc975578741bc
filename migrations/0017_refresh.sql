-- Scheduled dataset refresh (src/engines/datasets/refresh.ts): one row per refreshable dataset with its current run's
-- phase and cursor (resumable after a crash) and what /status/data and the operator see (last attempt, last success,
-- generation, status, error).
CREATE TABLE `dataset_refresh` (
	`name` text PRIMARY KEY NOT NULL,
	`run` text,
	`phase` text,
	`generation` integer,
	`active_generation` integer,
	`cursor` text,
	`files` text,
	`step_at` integer,
	`status` text DEFAULT 'never' NOT NULL,
	`error` text,
	`last_attempt_at` integer,
	`last_success_at` integer,
	`last_version` text,
	`last_records` integer,
	`source_tag` text,
	`forced` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- Generations of datasets whose rows carry one (company registers): answers read `active` (absent: generation 0, the
-- operator's manual imports); a refresh writes `staging` beside it and switches in one statement.
CREATE TABLE `dataset_generations` (
	`name` text PRIMARY KEY NOT NULL,
	`active` integer DEFAULT 0 NOT NULL,
	`staging` integer
);
--> statement-breakpoint
-- Register rows gain a generation, so a refreshed register is written beside the one answers read.
CREATE TABLE `register_entities_new` (
	`register` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`identifier` text NOT NULL,
	`name` text,
	`status` text NOT NULL,
	`status_detail` text,
	`country` text,
	`registration_status` text,
	`linked_register` text,
	`linked_identifier` text,
	PRIMARY KEY(`register`, `generation`, `identifier`)
);
--> statement-breakpoint
INSERT INTO `register_entities_new` (`register`, `generation`, `identifier`, `name`, `status`, `status_detail`, `country`, `registration_status`, `linked_register`, `linked_identifier`)
	SELECT `register`, 0, `identifier`, `name`, `status`, `status_detail`, `country`, `registration_status`, `linked_register`, `linked_identifier` FROM `register_entities`;
--> statement-breakpoint
DROP TABLE `register_entities`;
--> statement-breakpoint
ALTER TABLE `register_entities_new` RENAME TO `register_entities`;
