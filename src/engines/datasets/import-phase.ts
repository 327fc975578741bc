import { databaseOf } from "../../db/reference";
import { checkAndActivate } from "./activate";
import { enqueue, switchDelaySeconds } from "./handover";
import { parseRecords, wholeRecordBytes } from "./records";
import { readRange } from "./r2-writer";
import { familyOf, type RefreshableDataset } from "./refreshable";
import { RefreshFailure, type StagedFile } from "./stage";
import { advance, readCursor, readFiles, type Cursor, type RefreshRow } from "./state";

/** Bytes read per import chunk, and the time a step keeps reading chunks before it hands over to the next message. */
const CHUNK_BYTES = 1024 * 1024;
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
const STEP_BUDGET_MS = 10_000;
/** Rows a `binary` file's walk yields per commit (one cursor update). */
const WALK_ROWS = 10_000;

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

export async function importPhase(env: Env, dataset: RefreshableDataset, row: RefreshRow, run: string): Promise<void> {
  const files = readFiles(row);
  const generation = row.generation!;
  let cursorText = row.cursor;
  let cursor = readCursor(row);
  const deadline = Date.now() + STEP_BUDGET_MS;
  let binary = null as { file: number; bytes: Uint8Array } | null;
  const wroteFrom = cursor.file;
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
    const rowsDb = databaseOf(env, familyOf(dataset));
    const writes: D1PreparedStatement[] = [];
    for (let i = 0; i < rows.length; i += per)
      writes.push(...dataset.table.insert(rowsDb, generation, rows.slice(i, i + per)));
    const moved = advance(
      env.DB,
      { name: dataset.name, run },
      { cursor: nextText, step_at: Date.now() },
      { cursor: cursorText },
    );
    // Rows in their own database are committed first: a crash before the cursor moves rewrites the same rows.
    const apart = familyOf(dataset) !== "main";
    if (apart && writes.length) await rowsDb.batch(writes);
    const results = await env.DB.batch(apart ? [moved] : [...writes, moved]);
    // Another delivery of this step committed first: it carries the run on, this one stops.
    if ((results[results.length - 1]?.meta.changes ?? 0) === 0) return;
    cursor = next;
    cursorText = nextText;
  }
  if (cursor.file < files.length) return enqueue(env, dataset.name, run);
  // Rows in their own database: the switch waits as long as the sweep does, so a replica of theirs that lags behind
  // the last rows is not read through a generation DB already names (the cursor stays done; the next step switches).
  const lag = switchDelaySeconds(env, dataset);
  if (lag > 0 && wroteFrom < files.length) return enqueue(env, dataset.name, run, lag);
  return checkAndActivate(env, dataset, { row: { ...row, cursor: cursorText }, run, cursor, files });
}
