-- What a shared mailbox answer knew of catch-all: true (a random address was accepted too), false (refused), null
-- (not known: the random address got no clear answer, or the row predates this column). An accepted address whose
-- domain's catch-all status is unknown then answers `catch_all: null`, not false.
ALTER TABLE `mailbox_answers` ADD `catch_all` integer;
