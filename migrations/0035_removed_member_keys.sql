-- A removed member's keys are revoked with the removal from now on (docs/dashboard.md, "Accounts, members and roles"),
-- so a later invitation revives none of them. Keys of members removed before were only refused while their holder had
-- no membership: they are revoked here, both those whose holder is still gone and those whose holder was invited
-- again and has not accepted yet (the membership, a pending invitation, began after the key: the key is from the
-- earlier membership and would work again today).
UPDATE `api_keys` SET `revoked_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE `revoked_at` IS NULL AND `user_id` IS NOT NULL AND NOT EXISTS (
	SELECT 1 FROM `memberships` m WHERE m.`account_id` = `api_keys`.`account_id` AND m.`user_id` = `api_keys`.`user_id`
		AND (m.`accepted_at` IS NOT NULL OR m.`created_at` <= `api_keys`.`created_at`)
);
