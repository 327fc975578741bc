import type { RefreshMessage } from "../../src/engines/datasets/refreshable";
import { handleRefreshMessage, refreshDueDatasets } from "../../src/engines/datasets/schedule";
import { refreshableDatasets } from "../../src/products/refreshable";

/**
 * The scheduled dataset refresh (docs/operations.md, "Dataset refresh"). The cron asks every quarter hour which
 * datasets are due at their publisher's cadence and starts them; each run then goes on as a chain of JOBS messages,
 * one bounded step each (src/engines/datasets/refresh.ts).
 */
export async function refreshDatasets(env: Env): Promise<void> {
  const done = await refreshDueDatasets(env, Date.now(), refreshableDatasets());
  if (done.started.length || done.nudged.length || done.failed.length)
    console.log(JSON.stringify({ event: "dataset_refresh", ...done }));
}

export const runRefreshMessage = (env: Env, message: RefreshMessage) =>
  handleRefreshMessage(env, message, refreshableDatasets());
