-- An invitation is not yet a membership that receives mail (docs/mail.md, "Who receives mail"): `accepted_at` is set
-- when the invited person signs in to the account, and a pending invitation lapses 7 days after `created_at`.
-- Memberships from before count as accepted when there is a sign of use (an owner, a dashboard session, a key or a
-- passkey of theirs) or when they are older than an invitation's validity (grandfathered: nothing tells an old member
-- from an old invitation); the rest are pending invitations, lapsing 7 days after they were sent.
ALTER TABLE `memberships` ADD `accepted_at` integer;
--> statement-breakpoint
UPDATE `memberships` SET `accepted_at` = `created_at`
WHERE `role` = 'owner'
	OR `created_at` <= CAST(strftime('%s', 'now') AS INTEGER) * 1000 - 604800000
	OR EXISTS (SELECT 1 FROM `dashboard_sessions` s WHERE s.`user_id` = `memberships`.`user_id`
		AND s.`account_id` = `memberships`.`account_id`)
	OR EXISTS (SELECT 1 FROM `api_keys` k WHERE k.`user_id` = `memberships`.`user_id`
		AND k.`account_id` = `memberships`.`account_id`)
	OR EXISTS (SELECT 1 FROM `passkeys` p WHERE p.`user_id` = `memberships`.`user_id`);
