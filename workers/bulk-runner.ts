import { runJob } from "../src/engines/bulk/run";
import { productNamed } from "../src/products/registry";

/** Queue consumer of bulk runs: the engine walks the run's chunks; the registry tells it which product answers. */
export const runBulkJob = (env: Env, jobId: number) => runJob(env, jobId, productNamed);
