-- Address reference rows gain a generation (src/products/address/refresh.ts), so the scheduled refresh writes a new
-- edition of ONSPD, OS Open Names or the BAN beside the one answers read and switches in one statement
-- (`dataset_generations.active`, absent: 0). Rows loaded before this migration, and by the operator's importer into a
-- dataset no refresh has switched yet, are generation 0. Rebuilt tables: the generation is part of each primary key.
CREATE TABLE `address_postcodes_new` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`locality_key` text NOT NULL,
	`locality` text,
	`region` text,
	`region_code` text,
	`subregion` text,
	`subregion_code` text,
	`latitude` real,
	`longitude` real,
	`alias` integer NOT NULL,
	PRIMARY KEY(`country`, `postcode`, `dataset`, `generation`, `locality_key`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `address_postcodes_new` (`country`, `postcode`, `dataset`, `generation`, `locality_key`, `locality`, `region`, `region_code`, `subregion`, `subregion_code`, `latitude`, `longitude`, `alias`)
	SELECT `country`, `postcode`, `dataset`, 0, `locality_key`, `locality`, `region`, `region_code`, `subregion`, `subregion_code`, `latitude`, `longitude`, `alias` FROM `address_postcodes`;
--> statement-breakpoint
DROP TABLE `address_postcodes`;
--> statement-breakpoint
ALTER TABLE `address_postcodes_new` RENAME TO `address_postcodes`;
--> statement-breakpoint
CREATE INDEX `address_postcodes_dataset` ON `address_postcodes` (`dataset`, `generation`);
--> statement-breakpoint
CREATE TABLE `address_streets_new` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`street` text NOT NULL,
	`locality` text,
	PRIMARY KEY(`country`, `postcode`, `street_key`, `dataset`, `generation`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `address_streets_new` (`country`, `postcode`, `street_key`, `dataset`, `generation`, `street`, `locality`)
	SELECT `country`, `postcode`, `street_key`, `dataset`, 0, `street`, `locality` FROM `address_streets`;
--> statement-breakpoint
DROP TABLE `address_streets`;
--> statement-breakpoint
ALTER TABLE `address_streets_new` RENAME TO `address_streets`;
--> statement-breakpoint
CREATE INDEX `address_streets_dataset` ON `address_streets` (`dataset`, `generation`);
--> statement-breakpoint
CREATE TABLE `address_premises_new` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`number` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`country`, `postcode`, `street_key`, `number`, `dataset`, `generation`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `address_premises_new` (`country`, `postcode`, `street_key`, `number`, `dataset`, `generation`)
	SELECT `country`, `postcode`, `street_key`, `number`, `dataset`, 0 FROM `address_premises`;
--> statement-breakpoint
DROP TABLE `address_premises`;
--> statement-breakpoint
ALTER TABLE `address_premises_new` RENAME TO `address_premises`;
--> statement-breakpoint
CREATE INDEX `address_premises_dataset` ON `address_premises` (`dataset`, `generation`);
