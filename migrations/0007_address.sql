-- Postal reference data of the address product (src/db/tables/address.ts). Hand-written: drizzle-kit is not run for
-- this migration. WITHOUT ROWID: every read is by the primary key's prefix (country, postcode).
CREATE TABLE `address_postcodes` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`dataset` text NOT NULL,
	`locality_key` text NOT NULL,
	`locality` text,
	`region` text,
	`region_code` text,
	`subregion` text,
	`subregion_code` text,
	`latitude` real,
	`longitude` real,
	`alias` integer NOT NULL,
	PRIMARY KEY(`country`, `postcode`, `dataset`, `locality_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `address_postcodes_dataset` ON `address_postcodes` (`dataset`);
--> statement-breakpoint
CREATE TABLE `address_streets` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`dataset` text NOT NULL,
	`street` text NOT NULL,
	`locality` text,
	PRIMARY KEY(`country`, `postcode`, `street_key`, `dataset`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `address_streets_dataset` ON `address_streets` (`dataset`);
