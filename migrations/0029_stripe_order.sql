-- Stripe does not order its events (docs/billing.md, "Buying credits"). `session` names the Checkout session that
-- credited a payment intent, so a second session naming the same intent credits nothing (null on rows from before:
-- those credit by their session's ledger id, as they did); `credited` turns 1 once the account's object has the credits
-- (rows from before were all credited). A refund that arrives before its payment waits in
-- `stripe_early_refunds` (the highest refunded amount announced) and is taken back when the payment is credited.
ALTER TABLE `stripe_payments` ADD `session` text;
--> statement-breakpoint
ALTER TABLE `stripe_payments` ADD `credited` integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
CREATE TABLE `stripe_early_refunds` (
	`payment_intent` text PRIMARY KEY NOT NULL,
	`amount_refunded` integer NOT NULL,
	`created_at` integer NOT NULL
);
