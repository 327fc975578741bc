-- IP product: range tables built from IP datasets, the Tor exit register, and the accounts' allow and deny lists.
-- Addresses are keyed in one 128-bit space (IPv4 at ::ffff:0:0/96) as 32 lower-case hex digits, so text order is
-- numeric order for both families and a lookup is one index seek: the last row whose start <= key, then end >= key.
-- Each import writes a new generation; `ip_datasets.active` switches to it in one step when the import completes.
CREATE TABLE `ip_datasets` (
	`name` text PRIMARY KEY NOT NULL,
	`active` integer,
	`staging` integer,
	`version` text,
	`records` integer,
	`loaded_at` integer
);
--> statement-breakpoint
CREATE TABLE `ip_country_ranges` (
	`generation` integer NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`country` text NOT NULL,
	PRIMARY KEY(`generation`, `start`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `ip_asn_ranges` (
	`generation` integer NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`asn` integer NOT NULL,
	`name` text,
	PRIMARY KEY(`generation`, `start`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `ip_asn_ranges_asn` ON `ip_asn_ranges` (`generation`, `asn`, `start`);
--> statement-breakpoint
CREATE TABLE `ip_tor_exits` (
	`generation` integer NOT NULL,
	`address` text NOT NULL,
	PRIMARY KEY(`generation`, `address`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `ip_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`entries` text NOT NULL,
	`ranges` text NOT NULL,
	`asns` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ip_lists_account` ON `ip_lists` (`account_id`);
