-- What each installed dataset covers (src/db/coverage.ts): JSON `{kind, countries?, note?}`, written by every install.
-- Rows installed before this migration read as partial ("not recorded") until re-imported, so no answer turns a miss in
-- them into a negative; the synthetic samples (`-sample` versions) are recorded as samples now.
ALTER TABLE `datasets` ADD `coverage` text;
--> statement-breakpoint
UPDATE `datasets` SET `coverage` = '{"kind":"sample","note":"Synthetic sample rows."}' WHERE `version` LIKE '%-sample';
--> statement-breakpoint
-- House numbers of the street registers (the BAN): an address is located to the premise when its number is listed.
CREATE TABLE `address_premises` (
	`country` text NOT NULL,
	`postcode` text NOT NULL,
	`street_key` text NOT NULL,
	`number` text NOT NULL,
	`dataset` text NOT NULL,
	PRIMARY KEY(`country`, `postcode`, `street_key`, `number`, `dataset`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `address_premises_dataset` ON `address_premises` (`dataset`);
