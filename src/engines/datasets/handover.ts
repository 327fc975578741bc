import { familyOf, type RefreshableDataset, type RefreshMessage } from "./refreshable";
import { failRun } from "./state";

// How a refresh step hands over: the next step as a queue message, or the end of a failed run with its staged files.

const message = (name: string, run: string): RefreshMessage => ({ type: "dataset_refresh", name, run });
export async function enqueue(env: Env, name: string, run: string, delaySeconds = 0): Promise<void> {
  await env.JOBS.send(message(name, run), delaySeconds > 0 ? { delaySeconds } : undefined);
}

const DEFAULT_REPLICA_LAG_S = 60;

/**
 * Seconds a step waits when rows live in another database than their bookkeeping (docs/operations.md, "Capacity"):
 * the two databases' read replicas lag apart, so the switch to a new generation waits after its last rows are written
 * (a replica of the rows' database may lag behind them) and the sweep of the old one waits after the switch (a replica
 * of `DB` may still name it). Rows beside their bookkeeping need neither: one replica holds both as of one instant.
 */
export function switchDelaySeconds(env: Env, dataset: RefreshableDataset): number {
  if (familyOf(dataset) === "main") return 0;
  const configured = Number.parseInt(env.DATASET_SWEEP_DELAY_S ?? "", 10);
  return Number.isNaN(configured) ? DEFAULT_REPLICA_LAG_S : configured;
}

export async function finishFailed(env: Env, dataset: RefreshableDataset, run: string, error: string): Promise<void> {
  await failRun(env.DB, { name: dataset.name, run }, error, Date.now());
  await removeStaged(env, dataset.name, run);
}

export async function removeStaged(env: Env, name: string, run: string): Promise<void> {
  const listed = await env.DATASETS.list({ prefix: `refresh/${name}/${run}/` });
  if (listed.objects.length) await env.DATASETS.delete(listed.objects.map((o) => o.key));
}
