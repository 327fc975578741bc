-- Address keys fold street lines with the street table (docs/address.md, "Address keys"). Repeat markers and
-- suppressions now carry the version of the key function that keyed them; rows written before (and by the previous
-- release while this one rolls out) take 0. The Worker re-keys an account's rows of an older version from their stored
-- answers the first time it reads them (src/engines/rekey.ts), so a suppression never stops working after the upgrade.
-- The columns are added with a default, so the previous release keeps working against this schema.
ALTER TABLE `suppressions` ADD `key_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `repeats` ADD `key_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX `suppressions_key_version` ON `suppressions` (`account_id`,`product`,`key_version`);
--> statement-breakpoint
CREATE INDEX `repeats_key_version` ON `repeats` (`account_id`,`product`,`key_version`);
