import { parseRecords, wholeRecordBytes } from "./records";
import { readRange } from "./r2-writer";
import type { RefreshableDataset, RefreshMessage } from "./refreshable";
import { RefreshFailure, sourceUrl, stageFile, type StagedFile } from "./stage";
import {
  advance,
  claimRun,
  failRun,
  readCursor,
  readFiles,
  refreshRow,
  START,
  type Cursor,
  type RefreshRow,
} from "./state";

/**
 * The refresh of one dataset as a chain of queue messages, one step each (src/engines/datasets/refreshable.ts):
 * fetch -> import (byte ranges of the staged text, each committed with its cursor) -> check and activate -> sweep.
 * Each step reads the run's row, does a bounded amount of work, commits it together with where the next step starts,
 * and queues that step. A message for a run that is over, or whose cursor moved on, does nothing.
 */

/** Bytes read per import chunk, and the time a step keeps reading chunks before it hands over to the next message. */
const CHUNK_BYTES = 1024 * 1024;
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
const STEP_BUDGET_MS = 10_000;
/** Rows a `binary` file's walk yields per commit (one cursor update). */
const WALK_ROWS = 10_000;
const SWEEP_BUDGET_MS = 10_000;
const MAX_FAILURES = 3;

const message = (name: string, run: string): RefreshMessage => ({ type: "dataset_refresh", name, run });
async function enqueue(env: Env, name: string, run: string): Promise<void> {
  await env.JOBS.send(message(name, run));
}

/** Starts a refresh of `dataset` unless one is running; `forced` ignores the publisher's not-modified answer. */
export async function startRefresh(
  env: Env,
  dataset: RefreshableDataset,
  now: number,
  forced = false,
): Promise<string | null> {
  const run = `${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  if (!(await claimRun(env.DB, dataset.name, run, now, forced))) return null;
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
    if (err instanceof RefreshFailure || row.phase === "fetch")
      return finishFailed(env, dataset, row, run, errorText(err));
    const cursor = readCursor(row);
    if (row.phase === "import" && cursor.failures + 1 >= MAX_FAILURES)
      return finishFailed(env, dataset, row, run, errorText(err));
    if (row.phase === "import")
      await advance(
        env.DB,
        dataset.name,
        run,
        { cursor: JSON.stringify({ ...cursor, failures: cursor.failures + 1 }) },
        { cursor: row.cursor },
      ).run();
    throw err;
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function finishFailed(
  env: Env,
  dataset: RefreshableDataset,
  _row: RefreshRow,
  run: string,
  error: string,
): Promise<void> {
  await failRun(env.DB, dataset.name, run, error, Date.now());
  await removeStaged(env, dataset.name, run);
}

async function removeStaged(env: Env, name: string, run: string): Promise<void> {
  const listed = await env.DATASETS.list({ prefix: `refresh/${name}/${run}/` });
  if (listed.objects.length) await env.DATASETS.delete(listed.objects.map((o) => o.key));
}

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
    staged.push(await stageFile(env.DATASETS, sourceUrl(env, source), source, prefix(i), tags[i] ?? null));
  const now = Date.now();
  if (staged.every((s) => s === null)) {
    // The publisher has published nothing since the last refresh: the data is as fresh as the publisher's.
    await advance(env.DB, dataset.name, run, {
      run: null,
      phase: null,
      status: "ok",
      error: null,
      last_success_at: now,
      step_at: now,
    }).run();
    return;
  }
  // Some files unchanged, others not: the new generation needs them all, so fetch the unchanged ones again.
  for (const [i, source] of dataset.sources.entries())
    staged[i] ??= await stageFile(env.DATASETS, sourceUrl(env, source), source, prefix(i), null);
  const generation = await dataset.table.begin(env.DB);
  await advance(env.DB, dataset.name, run, {
    phase: "import",
    generation,
    files: JSON.stringify(staged),
    cursor: JSON.stringify(START),
    step_at: Date.now(),
  }).run();
  await enqueue(env, dataset.name, run);
}

async function wholeBinary(env: Env, maxBytes: number, file: StagedFile): Promise<Uint8Array> {
  if (file.size > maxBytes)
    throw new RefreshFailure(`${file.fileName} is ${file.size} bytes, over the ${maxBytes} this dataset reads`);
  return readRange(env.DATASETS, file.key, 0, Math.max(file.size, 1));
}

/** Reads the next chunk of whole records at the cursor; null when none ends within MAX_RECORD_BYTES. */
async function nextChunk(env: Env, dataset: RefreshableDataset, file: StagedFile, offset: number) {
  const format = dataset.format;
  const whole = format.kind === "whole";
  if (whole && file.size > format.maxBytes)
    throw new RefreshFailure(`${file.fileName} is ${file.size} bytes, over the ${format.maxBytes} this dataset reads`);
  for (
    let length = whole ? Math.max(file.size, 1) : CHUNK_BYTES;
    length <= Math.max(MAX_RECORD_BYTES, file.size);
    length *= 2
  ) {
    const bytes = await readRange(env.DATASETS, file.key, offset, length);
    const final = offset + bytes.length >= file.size;
    const used = wholeRecordBytes(bytes, dataset.format, final);
    if (used > 0 || final) return { records: parseRecords(bytes.subarray(0, used), dataset.format), used, final };
  }
  throw new RefreshFailure(`${file.fileName}: a record at byte ${offset} is longer than ${MAX_RECORD_BYTES} bytes`);
}

async function importPhase(env: Env, dataset: RefreshableDataset, row: RefreshRow, run: string): Promise<void> {
  const files = readFiles(row);
  const generation = row.generation!;
  let cursorText = row.cursor;
  let cursor = readCursor(row);
  const deadline = Date.now() + STEP_BUDGET_MS;
  let binary = null as { file: number; bytes: Uint8Array } | null;
  while (cursor.file < files.length && Date.now() < deadline) {
    const file = files[cursor.file]!;
    const state = cursor.state ?? dataset.reader.begin(cursor.file, file.fileName);
    let chunk: { used: number; final: boolean };
    let read: { rows: unknown[]; skipped: number };
    if (dataset.format.kind === "binary") {
      // Read once per step (the file is small enough to hold: maxBytes), walked from the state the cursor saved.
      if (binary?.file !== cursor.file)
        binary = { file: cursor.file, bytes: await wholeBinary(env, dataset.format.maxBytes, file) };
      const walked = dataset.reader.walk!(binary.bytes, state, WALK_ROWS);
      chunk = { used: 0, final: walked.done };
      read = walked;
    } else {
      const text =
        file.size > cursor.offset
          ? await nextChunk(env, dataset, file, cursor.offset)
          : { records: [], used: 0, final: true };
      chunk = text;
      read = dataset.reader.read(text.records, state);
    }
    const { rows, skipped } = read;
    if (chunk.final) rows.push(...dataset.reader.end(state));
    const next: Cursor = chunk.final
      ? {
          ...cursor,
          file: cursor.file + 1,
          offset: 0,
          state: null,
          records: cursor.records + rows.length,
          skipped: cursor.skipped + skipped,
          failures: 0,
        }
      : {
          ...cursor,
          offset: cursor.offset + chunk.used,
          state,
          records: cursor.records + rows.length,
          skipped: cursor.skipped + skipped,
          failures: 0,
        };
    const nextText = JSON.stringify(next);
    const per = dataset.rowsPerStep ?? 2_000;
    const writes: D1PreparedStatement[] = [];
    for (let i = 0; i < rows.length; i += per)
      writes.push(...dataset.table.insert(env.DB, generation, rows.slice(i, i + per)));
    const moved = advance(env.DB, dataset.name, run, { cursor: nextText, step_at: Date.now() }, { cursor: cursorText });
    const results = await env.DB.batch([...writes, moved]);
    // Another delivery of this step committed first: it carries the run on, this one stops.
    if ((results[results.length - 1]?.meta.changes ?? 0) === 0) return;
    cursor = next;
    cursorText = nextText;
  }
  if (cursor.file < files.length) return enqueue(env, dataset.name, run);
  return checkAndActivate(env, dataset, { ...row, cursor: cursorText }, run, cursor, files);
}

/** Today's date, a date in the file name, or the Last-Modified date: the version answers cite. */
function defaultVersion(file: StagedFile, now: number): string {
  const named = /(?:^|\D)(20\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?:\D|$)/.exec(file.fileName);
  if (named) return `${named[1]}-${named[2]}-${named[3]}`;
  const modified = file.lastModified ? Date.parse(file.lastModified) : NaN;
  return new Date(Number.isNaN(modified) ? now : modified).toISOString().slice(0, 10);
}

async function checkAndActivate(
  env: Env,
  dataset: RefreshableDataset,
  row: RefreshRow,
  run: string,
  cursor: Cursor,
  files: StagedFile[],
): Promise<void> {
  const current = await dataset.table.current(env.DB);
  const { minRecords, minRatio, maxRatio } = dataset.sanity;
  const records = cursor.records;
  // A shipped sample (a `-sample` version, as `npm run dev` installs them) says nothing of a complete file's size.
  const reference = current && current.records > 0 && !current.version.endsWith("-sample") ? current.records : null;
  const refused =
    records < minRecords
      ? `${records} rows, fewer than the ${minRecords} a complete file has`
      : reference !== null && (records < reference * minRatio || records > reference * maxRatio)
        ? `${records} rows against ${reference} in generation ${current!.generation} (accepted: ${minRatio}x to ` +
          `${maxRatio}x)`
        : null;
  if (refused)
    return finishFailed(
      env,
      dataset,
      row,
      run,
      `sanity check failed: ${refused}; answers keep generation ${current?.generation ?? "none"}`,
    );
  const now = Date.now();
  const first = files[0]!;
  const version =
    dataset.version?.({ fileName: first.fileName, lastModified: first.lastModified, now }) ??
    defaultVersion(first, now);
  const generation = row.generation!;
  const done = advance(env.DB, dataset.name, run, {
    phase: "sweep",
    status: "ok",
    error: null,
    last_success_at: now,
    last_version: version,
    last_records: records,
    active_generation: generation,
    source_tag: JSON.stringify(files.map((f) => f.tag)),
    step_at: now,
    files: null,
  });
  // One batch: answers read the new generation from the statement that lists it, never a half-imported one.
  const [switched] = await env.DB.batch([
    ...dataset.table.activate(env.DB, generation, version, records, now, dataset.coverage),
    done,
  ]);
  if ((switched?.meta.changes ?? 0) === 0) {
    // An operator's import reserved a newer generation meanwhile: theirs wins, this one is left to its sweep.
    return finishFailed(
      env,
      dataset,
      row,
      run,
      `generation ${generation} was replaced by another import before it could be switched to`,
    );
  }
  await removeStaged(env, dataset.name, run);
  await enqueue(env, dataset.name, run);
}

async function sweepPhase(env: Env, dataset: RefreshableDataset, _row: RefreshRow, run: string): Promise<void> {
  const { done } = await dataset.table.sweep(env.DB, SWEEP_BUDGET_MS);
  if (!done) return enqueue(env, dataset.name, run);
  await advance(env.DB, dataset.name, run, {
    run: null,
    phase: null,
    generation: null,
    cursor: null,
    step_at: Date.now(),
  }).run();
}
