-- IP datasets, third wave: city-level location (ip-city), the ranges of published lists (cloud providers' ranges as
-- hosting-*, VPN lists as vpn-*) in one table keyed by dataset (docs/ip.md, "Datasets"). What each covers is recorded
-- with its `datasets` row (0015_coverage.sql, src/db/coverage.ts).
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
