-- The address reference database (REFERENCE_ADDRESS, src/db/reference.ts): the address tables and the autocomplete
-- index as migrations/0033_reference_keys.sql left them in DB (keys leading with (dataset, generation), no other index,
-- WITHOUT ROWID added by hand: drizzle cannot declare it). migrations/0034_address_database.sql drops them from DB.
CREATE TABLE `address_postcodes` (
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
	PRIMARY KEY(`dataset`, `generation`, `country`, `postcode`, `locality_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `address_premises` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`number` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`dataset`, `generation`, `country`, `postcode`, `street_key`, `number`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `address_streets` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`street` text NOT NULL,
	`locality` text,
	PRIMARY KEY(`dataset`, `generation`, `country`, `postcode`, `street_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `autocomplete_tokens` (
	`country` text NOT NULL,
	`token` text NOT NULL,
	`kind` text NOT NULL,
	`postcode` text NOT NULL,
	`label` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`street_key` text NOT NULL,
	`locality` text,
	`region` text,
	`search` text NOT NULL,
	PRIMARY KEY(`dataset`, `generation`, `country`, `token`, `kind`, `postcode`, `label`)
) WITHOUT ROWID;

