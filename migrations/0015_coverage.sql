-- What each installed dataset covers (src/db/coverage.ts): JSON `{kind, countries?, note?}`, written by every install.
-- Rows installed before this migration read as partial ("not recorded") until re-imported, so no answer turns a miss in
-- them into a negative; the synthetic samples (`-sample` versions) are recorded as samples now.
ALTER TABLE `datasets` ADD `coverage` text;
--> statement-breakpoint
UPDATE `datasets` SET `coverage` = '{"kind":"sample","note":"Synthetic sample rows."}' WHERE `version` LIKE '%-sample';
