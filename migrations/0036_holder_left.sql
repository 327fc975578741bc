-- A key whose holder was removed answers 403 KEY_ACCOUNT_MISMATCH for good (the error table of the spec), not 401 as a
-- revocation would: `holder_left_at` records that its holder left (set by a removal on the dashboard, and by an
-- invitation of someone the operator detached). Keys that 0035 and the removals before this release revoked for that
-- reason get it too, where the data tells them apart (docs/dashboard.md, "Removing a member"), at the instant of that
-- revocation: `revoked_at` stays, so the release before, still serving while this one rolls out (and after a
-- rollback), refuses them as before; this release reads a revocation at the instant the holder left as no person's
-- and answers 403 (`revokedByPerson`, src/db/keys.ts).
ALTER TABLE `api_keys` ADD `holder_left_at` integer;--> statement-breakpoint
-- 1. The keys 0035 revoked: at a whole second (strftime), not before the day 0035 was written (2026-11-29 UTC), held
-- by someone with no membership begun before the key. (The record of when 0035 ran, in d1_migrations, is not read:
-- not every tool that applies these files keeps one.) A person revokes at a whole second once in a thousand times.
UPDATE `api_keys` SET `holder_left_at` = `revoked_at`
WHERE `user_id` IS NOT NULL AND `revoked_at` IS NOT NULL AND `revoked_at` % 1000 = 0
	AND `revoked_at` >= 1795910400000
	AND NOT EXISTS (SELECT 1 FROM `memberships` m WHERE m.`account_id` = `api_keys`.`account_id`
		AND m.`user_id` = `api_keys`.`user_id` AND m.`created_at` <= `api_keys`.`created_at`);--> statement-breakpoint
-- 2. Keys a dashboard removal (or an invitation of a detached holder) revoked since 0035 (no removal revoked keys
-- before the day it was written: an earlier revocation is a person's): the holder has had no membership since the
-- revocation (none now, or one begun at or after it), and it is the last thing that happened to their keys on the
-- account before that membership (no key of theirs made or revoked later), as a removal is.
UPDATE `api_keys` SET `holder_left_at` = `revoked_at`
WHERE `user_id` IS NOT NULL AND `revoked_at` IS NOT NULL AND `holder_left_at` IS NULL
	AND `revoked_at` >= 1795910400000
	AND NOT EXISTS (SELECT 1 FROM `memberships` m WHERE m.`account_id` = `api_keys`.`account_id`
		AND m.`user_id` = `api_keys`.`user_id` AND m.`created_at` < `api_keys`.`revoked_at`)
	AND NOT EXISTS (SELECT 1 FROM `api_keys` o, (SELECT coalesce((SELECT m.`created_at` FROM `memberships` m
			WHERE m.`account_id` = `api_keys`.`account_id` AND m.`user_id` = `api_keys`.`user_id`), 9e18) AS `until`) u
		WHERE o.`account_id` = `api_keys`.`account_id` AND o.`user_id` = `api_keys`.`user_id`
		AND ((o.`created_at` > `api_keys`.`revoked_at` AND o.`created_at` < u.`until`)
			OR (o.`revoked_at` > `api_keys`.`revoked_at` AND o.`revoked_at` < u.`until`)));--> statement-breakpoint
-- 3. Members removed, invited again and accepted before 0035: their old keys work again today. A key made before
-- the membership of the holder began is from an earlier one; the membership was an invitation accepted later (an
-- operator add-member is accepted the moment it is made, and vouches for the keys it detached). When they left is
-- not recorded: the invitation that brought them back is the latest it can have been.
UPDATE `api_keys` SET `holder_left_at` = (SELECT m.`created_at` FROM `memberships` m
	WHERE m.`account_id` = `api_keys`.`account_id` AND m.`user_id` = `api_keys`.`user_id`)
WHERE `user_id` IS NOT NULL AND `revoked_at` IS NULL AND `holder_left_at` IS NULL
	AND EXISTS (SELECT 1 FROM `memberships` m WHERE m.`account_id` = `api_keys`.`account_id`
		AND m.`user_id` = `api_keys`.`user_id` AND m.`created_at` > `api_keys`.`created_at`
		AND m.`accepted_at` > m.`created_at`);
