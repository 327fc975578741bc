-- Sending policies (one per account and product) and the finer columns of delivery feedback.
CREATE TABLE `policies` (
	`account_id` text NOT NULL,
	`product` text NOT NULL,
	`rules` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `product`)
);
--> statement-breakpoint
ALTER TABLE `feedback` ADD `kind` text;
--> statement-breakpoint
ALTER TABLE `feedback` ADD `facet` text;
--> statement-breakpoint
CREATE INDEX `feedback_facet` ON `feedback` (`account_id`,`product`,`facet`,`created_at`);
