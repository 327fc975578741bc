-- The customer dashboard (src/dashboard, docs/dashboard.md): member roles, browser sessions, passkeys, sign-in
-- challenges, and the Stripe events and payments that move credits.
ALTER TABLE `memberships` ADD `role` text DEFAULT 'member' NOT NULL;
--> statement-breakpoint
-- Whoever holds the account's own address is its owner.
UPDATE `memberships` SET `role` = 'owner' WHERE `user_id` IN (
	SELECT `users`.`id` FROM `users` JOIN `accounts` ON `accounts`.`email` = `users`.`email` AND `accounts`.`id` = `memberships`.`account_id`
);
--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_user` ON `dashboard_sessions` (`user_id`);
--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer NOT NULL,
	`transports` text DEFAULT '[]' NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE INDEX `passkeys_user` ON `passkeys` (`user_id`);
--> statement-breakpoint
CREATE TABLE `auth_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`challenge` text NOT NULL,
	`user_id` text,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`account_id` text,
	`outcome` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stripe_payments` (
	`payment_intent` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pack` text NOT NULL,
	`credits` integer NOT NULL,
	`amount` integer NOT NULL,
	`refunded_credits` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stripe_customers` (
	`account_id` text PRIMARY KEY NOT NULL,
	`customer` text NOT NULL UNIQUE,
	`subscription` text,
	`plan` text
);
