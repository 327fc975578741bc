import { standInLabel } from "../sources";
import { earnedCoverage, standInCoverage } from "./earned";
import { enqueue, finishFailed, removeStaged, switchDelaySeconds } from "./handover";
import type { RefreshableDataset } from "./refreshable";
import type { StagedFile } from "./stage";
import { advance, type Cursor, type RefreshRow } from "./state";

/** Today's date, a date in the file name, or the Last-Modified date: the version answers cite. */
function defaultVersion(file: StagedFile, now: number): string {
  const named = /(?:^|\D)(20\d{2})-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?:\D|$)/.exec(file.fileName);
  if (named) return `${named[1]}-${named[2]}-${named[3]}`;
  const modified = file.lastModified ? Date.parse(file.lastModified) : NaN;
  return new Date(Number.isNaN(modified) ? now : modified).toISOString().slice(0, 10);
}

export async function checkAndActivate(
  env: Env,
  dataset: RefreshableDataset,
  imported: { row: RefreshRow; run: string; cursor: Cursor; files: StagedFile[] },
): Promise<void> {
  const { row, run, cursor, files } = imported;
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
      run,
      `sanity check failed: ${refused}; answers keep generation ${current?.generation ?? "none"}`,
    );
  const now = Date.now();
  const first = files[0]!;
  const version =
    dataset.version?.({ fileName: first.fileName, lastModified: first.lastModified, now }) ??
    defaultVersion(first, now);
  const generation = row.generation!;
  // A stand-in publisher's file (its `X-Stand-In` header, or the offline stack's LIVE_STAND_INS) is a sample.
  const standIn = files.find((f) => f.standIn)?.standIn ?? standInLabel(env);
  const { coverage } = standIn
    ? standInCoverage(dataset.coverage, standIn)
    : earnedCoverage(dataset.coverage, records, dataset.fullFloor);
  const done = advance(
    env.DB,
    { name: dataset.name, run },
    {
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
    },
  );
  // One batch: answers read the new generation from the statement that lists it, never a half-imported one.
  const [switched] = await env.DB.batch([
    ...dataset.table.activate(env.DB, { generation, version, records, now, coverage }),
    done,
  ]);
  if ((switched?.meta.changes ?? 0) === 0) {
    // An operator's import reserved a newer generation meanwhile: theirs wins, this one is left to its sweep.
    return finishFailed(
      env,
      dataset,
      run,
      `generation ${generation} was replaced by another import before it could be switched to`,
    );
  }
  await removeStaged(env, dataset.name, run);
  await enqueue(env, dataset.name, run, switchDelaySeconds(env, dataset));
}
