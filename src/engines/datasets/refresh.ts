import { databaseOf } from "../../db/reference";
import { enqueue, finishFailed } from "./handover";
import { importPhase } from "./import-phase";
import { familyOf, type RefreshableDataset } from "./refreshable";
import { sourceUrl, stageFile, RefreshFailure, type StagedFile } from "./stage";
import { advance, claimRun, readCursor, refreshRow, START, type RefreshRow } from "./state";

/**
 * The refresh of one dataset as a chain of queue messages, one step each (src/engines/datasets/refreshable.ts):
 * fetch -> import (byte ranges of the staged text, each committed with its cursor) -> check and activate -> sweep.
 * Each step reads the run's row, does a bounded amount of work, commits it together with where the next step starts,
 * and queues that step. A message for a run that is over, or whose cursor moved on, does nothing.
 */

const SWEEP_BUDGET_MS = 10_000;
const MAX_FAILURES = 3;

/** Starts a refresh of `dataset` unless one is running; `forced` ignores the publisher's not-modified answer. */
export async function startRefresh(
  env: Env,
  dataset: RefreshableDataset,
  now: number,
  forced = false,
): Promise<string | null> {
  const run = `${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  if (!(await claimRun(env.DB, { name: dataset.name, run }, now, forced))) return null;
  await enqueue(env, dataset.name, run);
  return run;
}

/** Runs the step of `run` its row says is next. Throws only for a step to retry (the queue redelivers it). */
export async function runRefreshStep(env: Env, dataset: RefreshableDataset, run: string): Promise<void> {
  const row = await refreshRow(env.DB, dataset.name);
  if (!row || row.run !== run) return;
  try {
    if (row.phase === "fetch") return await fetchPhase(env, dataset, row, run);
    if (row.phase === "import") return await importPhase(env, dataset, row, run);
    if (row.phase === "sweep") return await sweepPhase(env, dataset, row, run);
  } catch (err) {
    if (err instanceof RefreshFailure || row.phase === "fetch") return finishFailed(env, dataset, run, errorText(err));
    const cursor = readCursor(row);
    if (row.phase === "import" && cursor.failures + 1 >= MAX_FAILURES)
      return finishFailed(env, dataset, run, errorText(err));
    if (row.phase === "import")
      await advance(
        env.DB,
        { name: dataset.name, run },
        { cursor: JSON.stringify({ ...cursor, failures: cursor.failures + 1 }) },
        { cursor: row.cursor },
      ).run();
    throw err;
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A fetch claimed this long ago without finishing died with its Worker: another delivery may fetch again. */
const FETCH_CLAIM_MS = 10 * 60_000;

async function fetchPhase(env: Env, dataset: RefreshableDataset, row: RefreshRow, run: string): Promise<void> {
  // One delivery fetches: a duplicate message would reserve a second generation beside the first.
  const claim = await env.DB.prepare(
    `UPDATE dataset_refresh SET cursor = json_object('fetching', ?3), step_at = ?3
     WHERE name = ?1 AND run = ?2 AND phase = 'fetch' AND (cursor IS NULL OR json_extract(cursor,
       '$.fetching') < ?3 - ?4)`,
  )
    .bind(dataset.name, run, Date.now(), FETCH_CLAIM_MS)
    .run();
  if ((claim.meta.changes ?? 0) === 0) return;
  const tags = row.forced ? [] : (JSON.parse(row.source_tag ?? "[]") as (string | null)[]);
  const prefix = (i: number) => `refresh/${dataset.name}/${run}/${i}`;
  const staged: (StagedFile | null)[] = [];
  for (const [i, source] of dataset.sources.entries())
    staged.push(
      await stageFile(env.DATASETS, sourceUrl(env, source), { source, prefix: prefix(i), tag: tags[i] ?? null }),
    );
  const now = Date.now();
  if (staged.every((s) => s === null)) {
    // The publisher has published nothing since the last refresh: the data is as fresh as the publisher's.
    await advance(
      env.DB,
      { name: dataset.name, run },
      {
        run: null,
        phase: null,
        status: "ok",
        error: null,
        last_success_at: now,
        step_at: now,
      },
    ).run();
    return;
  }
  // Some files unchanged, others not: the new generation needs them all, so fetch the unchanged ones again.
  for (const [i, source] of dataset.sources.entries())
    staged[i] ??= await stageFile(env.DATASETS, sourceUrl(env, source), { source, prefix: prefix(i), tag: null });
  const generation = await dataset.table.begin(env.DB);
  await advance(
    env.DB,
    { name: dataset.name, run },
    {
      phase: "import",
      generation,
      files: JSON.stringify(staged),
      cursor: JSON.stringify(START),
      step_at: Date.now(),
    },
  ).run();
  await enqueue(env, dataset.name, run);
}

async function sweepPhase(env: Env, dataset: RefreshableDataset, _row: RefreshRow, run: string): Promise<void> {
  const { done } = await dataset.table.sweep(env.DB, SWEEP_BUDGET_MS, databaseOf(env, familyOf(dataset)));
  if (!done) return enqueue(env, dataset.name, run);
  await advance(
    env.DB,
    { name: dataset.name, run },
    {
      run: null,
      phase: null,
      generation: null,
      cursor: null,
      step_at: Date.now(),
    },
  ).run();
}
