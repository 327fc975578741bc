/** Queue messages of the bulk engine: work on a run (a redelivered message is harmless). */
export type RunMessage = { type: "run"; jobId: number };
