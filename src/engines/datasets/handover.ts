import type { RefreshableDataset, RefreshMessage } from "./refreshable";
import { failRun } from "./state";

// How a refresh step hands over: the next step as a queue message, or the end of a failed run with its staged files.

const message = (name: string, run: string): RefreshMessage => ({ type: "dataset_refresh", name, run });
export async function enqueue(env: Env, name: string, run: string, delaySeconds = 0): Promise<void> {
  await env.JOBS.send(message(name, run), delaySeconds > 0 ? { delaySeconds } : undefined);
}

/**
 * Seconds between the switch to a new generation and the sweep of the old one when the rows live in another database
 * than the bookkeeping: a lagging read replica of `DB` may still name the old generation for a moment, and its rows
 * must still be there when it is read (docs/operations.md, "Capacity"). Rows beside their bookkeeping need none: one
 * replica holds both as of one instant.
 */
export const sweepDelaySeconds = (env: Env, dataset: RefreshableDataset): number =>
  (dataset.family ?? "main") === "main" ? 0 : Number(env.DATASET_SWEEP_DELAY_S ?? 60);

export async function finishFailed(env: Env, dataset: RefreshableDataset, run: string, error: string): Promise<void> {
  await failRun(env.DB, { name: dataset.name, run }, error, Date.now());
  await removeStaged(env, dataset.name, run);
}

export async function removeStaged(env: Env, name: string, run: string): Promise<void> {
  const listed = await env.DATASETS.list({ prefix: `refresh/${name}/${run}/` });
  if (listed.objects.length) await env.DATASETS.delete(listed.objects.map((o) => o.key));
}
