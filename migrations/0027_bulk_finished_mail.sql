-- When a run's "bulk run finished" mail was handed to the mail outbox (docs/mail.md): null while a finish has not been
-- mailed yet, so the recovery sweep can queue the mail a crash (or a failed queue send) lost right after the finish.
-- Runs finished before this column were handled when they finished.
ALTER TABLE `bulk_jobs` ADD `finished_mail_at` integer;
--> statement-breakpoint
UPDATE `bulk_jobs` SET `finished_mail_at` = `finished_at` WHERE `finished_at` IS NOT NULL;
