-- Optional mail kinds each recipient turned off on the preferences page (src/engines/mail/preferences.ts).
CREATE TABLE `mail_preferences` (
	`recipient` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`recipient`, `kind`)
);
