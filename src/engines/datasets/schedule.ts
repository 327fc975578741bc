import { database } from "../../db/client";
import { loadedDatasets, type Dataset } from "../../db/datasets";
import { earnedCoverage } from "./earned";
import { runRefreshStep, startRefresh } from "./refresh";
import type { Coverage, FullFloor, RefreshableDataset, RefreshMessage } from "./refreshable";
import { sourceUrl } from "./stage";
import { failRun, refreshRows, type RefreshRow } from "./state";

/**
 * When refreshes run (the cron dispatch in workers/dataset-refresh) and what they show (`/status/data`, the admin API).
 * A dataset whose URL var is `off` is never refreshed on schedule (an operator who loads it by hand). The datasets are
 * the registered products' `refreshable`, handed in by the caller (src/products/refreshable.ts): engines read no
 * registry.
 */
/**
 * A run without progress for this long gets its step queued again (a message lost to a crash between commit and send).
 */
const STALL_MS = 10 * 60_000;
/** A run without progress for this long has failed. */
const GIVE_UP_MS = 2 * 60 * 60_000;
/** After a failure, the next attempt comes within an hour even for a daily or monthly dataset. */
const RETRY_FAILED_MS = 60 * 60_000;

const disabled = (env: Env, dataset: RefreshableDataset) => dataset.sources.some((s) => sourceUrl(env, s) === "off");

function due(dataset: RefreshableDataset, row: RefreshRow | undefined, now: number): boolean {
  if (!row?.last_attempt_at) return true;
  const every = dataset.cadence.everyMinutes * 60_000;
  return now - row.last_attempt_at >= (row.status === "failed" ? Math.min(every, RETRY_FAILED_MS) : every);
}

/** The cron's work: start each due refresh, nudge stalled runs, fail runs stalled for good. */
export async function refreshDueDatasets(
  env: Env,
  now: number,
  refreshable: readonly RefreshableDataset[],
): Promise<{ started: string[]; nudged: string[]; failed: string[] }> {
  const rows = new Map((await refreshRows(env.DB)).map((r) => [r.name, r]));
  const out = { started: [] as string[], nudged: [] as string[], failed: [] as string[] };
  for (const dataset of refreshable) {
    const row = rows.get(dataset.name);
    const base = dataset.appliesTo === undefined ? null : rows.get(dataset.appliesTo);
    if (
      dataset.appliesTo !== undefined &&
      (!base?.last_success_at || base.run || out.started.includes(dataset.appliesTo))
    )
      continue;
    if (row?.run) {
      const idle = now - (row.step_at ?? 0);
      if (idle > GIVE_UP_MS) {
        await failRun(
          env.DB,
          { name: dataset.name, run: row.run },
          `stalled: no progress since ${new Date(row.step_at ?? 0).toISOString()}`,
          now,
        );
        out.failed.push(dataset.name);
      } else if (idle > STALL_MS) {
        await env.JOBS.send({ type: "dataset_refresh", name: dataset.name, run: row.run } satisfies RefreshMessage);
        out.nudged.push(dataset.name);
      }
      continue;
    }
    if (disabled(env, dataset) || !due(dataset, row, now)) continue;
    if (await startRefresh(env, dataset, now)) out.started.push(dataset.name);
  }
  return out;
}

/** One queue message of a refresh run. */
export async function handleRefreshMessage(
  env: Env,
  message: RefreshMessage,
  refreshable: readonly RefreshableDataset[],
): Promise<void> {
  const dataset = refreshable.find((d) => d.name === message.name);
  if (dataset) await runRefreshStep(env, dataset, message.run);
}

export interface RefreshView {
  status: RefreshRow["status"];
  /** The import step a running refresh is at (`fetch`, `import`, `sweep`), null when none runs. */
  phase: RefreshRow["phase"];
  last_attempt_at: string | null;
  last_success_at: string | null;
  /** The generation answers read (null until a refresh succeeded). */
  generation: number | null;
  error: string | null;
  stale: boolean;
  /**
   * Why what is installed from the last success is below the publisher's whole file: short of its floor (`partial`),
   * or a stand-in publisher's sample (`sample`); null otherwise.
   */
  coverage_note: string | null;
}

export interface RefreshedDataset {
  name: string;
  /** What is installed now (its `datasets` row); what the publisher's whole file covers while nothing is. */
  coverage: Coverage;
  /** What the publisher's whole file covers; a generation earns `full` only at `full_floor` rows or more. */
  publisher_coverage: Coverage;
  full_floor: FullFloor | null;
  url: string;
  cadence_minutes: number;
  refresh: RefreshView;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Every refreshable dataset with its refresh state; `stale` when no success is younger than the dataset's bound. */
export async function refreshViews(
  env: Env,
  now: number,
  refreshable: readonly RefreshableDataset[],
  loaded?: Dataset[],
): Promise<RefreshedDataset[]> {
  const [refreshed, datasets] = await Promise.all([refreshRows(env.DB), loaded ?? loadedDatasets(database(env))]);
  const rows = new Map(refreshed.map((r) => [r.name, r]));
  const installed = new Map(datasets.map((d) => [d.name, d.coverage]));
  return refreshable.map((dataset) => {
    const row = rows.get(dataset.name);
    const lastSuccess = row?.last_success_at ?? null;
    const current = installed.get(dataset.name);
    return {
      name: dataset.name,
      coverage: current ?? dataset.coverage,
      publisher_coverage: dataset.coverage,
      full_floor: dataset.fullFloor,
      url: dataset.sources.map((s) => sourceUrl(env, s)).join(" "),
      cadence_minutes: dataset.cadence.everyMinutes,
      refresh: {
        status: row?.status ?? "never",
        phase: row?.phase ?? null,
        last_attempt_at: iso(row?.last_attempt_at ?? null),
        last_success_at: iso(lastSuccess),
        generation: row?.active_generation ?? null,
        error: row?.error ?? null,
        stale: lastSuccess === null || now - lastSuccess > dataset.cadence.staleAfterMinutes * 60_000,
        coverage_note:
          lastSuccess === null || row?.last_records == null
            ? null
            : current && current.kind !== dataset.coverage.kind
              ? (current.note ?? null)
              : earnedCoverage(dataset.coverage, row.last_records, dataset.fullFloor).shortfall,
      },
    };
  });
}
