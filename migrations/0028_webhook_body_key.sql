-- A webhook body larger than D1 keeps well in a row (over 1 MiB; D1 caps a row at 2 MB) is frozen in R2 (RESULTS,
-- `webhooks/...`) instead: `body` is then empty and `body_key` names the object (docs/jobs-and-webhooks.md).
ALTER TABLE `webhook_deliveries` ADD `body_key` text;
