-- IP datasets, third wave: city-level location (ip-city), the ranges of published lists (cloud providers' ranges as
-- hosting-*, VPN lists as vpn-*) in one table keyed by dataset, and what each dataset covers (docs/ip.md, "Datasets").
ALTER TABLE `ip_datasets` ADD `coverage` text;
--> statement-breakpoint
CREATE TABLE `ip_city_ranges` (
	`generation` integer NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`city` text,
	`region` text,
	`postal_code` text,
	`latitude` real,
	`longitude` real,
	`accuracy_radius_km` integer,
	`country` text,
	PRIMARY KEY(`generation`, `start`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `ip_signal_ranges` (
	`dataset` text NOT NULL,
	`generation` integer NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`label` text,
	PRIMARY KEY(`dataset`, `generation`, `start`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Imports recorded before coverage was: the shipped samples are samples; anything else reads as partial (not recorded)
-- until it is imported again, so no answer turns a miss in it into a negative.
UPDATE `ip_datasets` SET `coverage` = '{"kind":"sample","note":"A few rows in the publisher''s format shipped with the code, not the publisher''s file."}' WHERE `version` LIKE '%-sample';
