-- The last runs of each monitor (docs/dashboard.md, "Monitors"): the summary and the changed entries of each run, the
-- latest 10 per monitor (older ones are pruned as each run is recorded), deleted with the monitor.
CREATE TABLE `monitor_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`monitor_id` integer NOT NULL,
	`ran_at` integer NOT NULL,
	`summary` text NOT NULL,
	`changes` text NOT NULL,
	`changed_total` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `monitor_runs_monitor` ON `monitor_runs` (`monitor_id`, `id`);
