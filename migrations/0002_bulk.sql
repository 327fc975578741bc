CREATE TABLE `bulk_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`key_id` text NOT NULL,
	`product` text NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`duplicate_count` integer DEFAULT 0 NOT NULL,
	`processed` integer DEFAULT 0 NOT NULL,
	`counts` text NOT NULL,
	`credits_used` integer DEFAULT 0 NOT NULL,
	`stopped_reason` text,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`entries` integer NOT NULL,
	`next_entry` integer DEFAULT 0 NOT NULL,
	`chunk_offsets` text NOT NULL,
	`options` text NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`webhook_status` text,
	`webhook_detail` text,
	`webhook_body` text,
	`idempotency_key` text,
	`request_hash` text,
	`create_response` text,
	`input_expired` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `bulk_jobs_account` ON `bulk_jobs` (`account_id`,`product`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `bulk_jobs_idempotency` ON `bulk_jobs` (`account_id`,`product`,`idempotency_key`);