CREATE TABLE `phone_prefixes` (
	`calling_code` text NOT NULL,
	`prefix` text NOT NULL,
	`dataset` text NOT NULL,
	`version` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`calling_code`, `prefix`, `dataset`, `version`)
);
