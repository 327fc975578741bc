import type { RefreshableDataset, RefreshMessage } from "./refreshable";
import { failRun } from "./state";

// How a refresh step hands over: the next step as a queue message, or the end of a failed run with its staged files.

const message = (name: string, run: string): RefreshMessage => ({ type: "dataset_refresh", name, run });
export async function enqueue(env: Env, name: string, run: string): Promise<void> {
  await env.JOBS.send(message(name, run));
}

export async function finishFailed(env: Env, dataset: RefreshableDataset, run: string, error: string): Promise<void> {
  await failRun(env.DB, { name: dataset.name, run }, error, Date.now());
  await removeStaged(env, dataset.name, run);
}

export async function removeStaged(env: Env, name: string, run: string): Promise<void> {
  const listed = await env.DATASETS.list({ prefix: `refresh/${name}/${run}/` });
  if (listed.objects.length) await env.DATASETS.delete(listed.objects.map((o) => o.key));
}
