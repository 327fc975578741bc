-- The address tables and the autocomplete index moved to their own database (REFERENCE_ADDRESS,
-- migrations-address/0000_address.sql). On a deployed database, reload the address datasets into the new database
-- (the importer or a refresh) before applying this: docs/operations.md, "Capacity".
DROP TABLE `address_postcodes`;--> statement-breakpoint
DROP TABLE `address_premises`;--> statement-breakpoint
DROP TABLE `address_streets`;--> statement-breakpoint
DROP TABLE `autocomplete_tokens`;
