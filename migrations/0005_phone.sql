CREATE TABLE `phone_prefixes` (
	`dataset` text NOT NULL,
	`version` text NOT NULL,
	`calling_code` text NOT NULL,
	`prefix` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`dataset`, `version`, `calling_code`, `prefix`)
);
