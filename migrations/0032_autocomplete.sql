-- The autocomplete index (src/products/autocomplete/tables.ts), written by drizzle-kit generate; WITHOUT ROWID added
-- by hand (drizzle cannot declare it), as for the address tables: a prefix is one range of the primary key.
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
	PRIMARY KEY(`country`, `token`, `kind`, `postcode`, `label`, `dataset`, `generation`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `autocomplete_tokens_dataset` ON `autocomplete_tokens` (`dataset`,`generation`);
