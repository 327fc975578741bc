-- Reference tables keyed for size (docs/operations.md, "Capacity"). The address tables' and the autocomplete index's
-- primary keys lead with (dataset, generation), so the index on those two columns that only the sweep and a dataset's
-- removal read goes: in a WITHOUT ROWID table such an index carries the whole key. `register_entities` becomes
-- WITHOUT ROWID: its primary key was a second B-tree beside the rowid table. Each table is rebuilt (create, copy,
-- drop, rename; dropping a table drops its indexes). Written by drizzle-kit generate for the address and autocomplete
-- tables, WITHOUT ROWID added by hand (drizzle cannot declare it); `register_entities` by hand (drizzle's snapshot
-- does not change).
CREATE TABLE `__new_address_postcodes` (
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
INSERT INTO `__new_address_postcodes`("country", "postcode", "dataset", "generation", "locality_key", "locality", "region", "region_code", "subregion", "subregion_code", "latitude", "longitude", "alias") SELECT "country", "postcode", "dataset", "generation", "locality_key", "locality", "region", "region_code", "subregion", "subregion_code", "latitude", "longitude", "alias" FROM `address_postcodes`;--> statement-breakpoint
DROP TABLE `address_postcodes`;--> statement-breakpoint
ALTER TABLE `__new_address_postcodes` RENAME TO `address_postcodes`;--> statement-breakpoint
CREATE TABLE `__new_address_premises` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`number` text NOT NULL,
	`dataset` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`dataset`, `generation`, `country`, `postcode`, `street_key`, `number`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_address_premises`("country", "postcode", "street_key", "number", "dataset", "generation") SELECT "country", "postcode", "street_key", "number", "dataset", "generation" FROM `address_premises`;--> statement-breakpoint
DROP TABLE `address_premises`;--> statement-breakpoint
ALTER TABLE `__new_address_premises` RENAME TO `address_premises`;--> statement-breakpoint
CREATE TABLE `__new_address_streets` (
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
INSERT INTO `__new_address_streets`("country", "postcode", "street_key", "dataset", "generation", "street", "locality") SELECT "country", "postcode", "street_key", "dataset", "generation", "street", "locality" FROM `address_streets`;--> statement-breakpoint
DROP TABLE `address_streets`;--> statement-breakpoint
ALTER TABLE `__new_address_streets` RENAME TO `address_streets`;--> statement-breakpoint
CREATE TABLE `__new_register_entities` (
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
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_register_entities`("register", "generation", "identifier", "name", "status", "status_detail", "country", "registration_status", "linked_register", "linked_identifier") SELECT "register", "generation", "identifier", "name", "status", "status_detail", "country", "registration_status", "linked_register", "linked_identifier" FROM `register_entities`;--> statement-breakpoint
DROP TABLE `register_entities`;--> statement-breakpoint
ALTER TABLE `__new_register_entities` RENAME TO `register_entities`;--> statement-breakpoint
CREATE TABLE `__new_autocomplete_tokens` (
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
--> statement-breakpoint
INSERT INTO `__new_autocomplete_tokens`("country", "token", "kind", "postcode", "label", "dataset", "generation", "street_key", "locality", "region", "search") SELECT "country", "token", "kind", "postcode", "label", "dataset", "generation", "street_key", "locality", "region", "search" FROM `autocomplete_tokens`;--> statement-breakpoint
DROP TABLE `autocomplete_tokens`;--> statement-breakpoint
ALTER TABLE `__new_autocomplete_tokens` RENAME TO `autocomplete_tokens`;
