/**
 * Which of a run's actions its state allows, read from the job as the API shows it. Pure (no imports), so the
 * dashboard's run page renders its controls with it and its page script (widget/src/dashboard/bulk.ts) shows the same
 * ones as the state changes; the engine's actions (actions.ts) refuse by the same rules.
 */
export interface RunState {
  status: string;
  stopped_reason: string | null;
  processed: number;
}

export type RunAction = "cancel" | "resume" | "download" | "redeliver";

export const isGoing = (status: string) => status === "queued" || status === "processing";

/** Settled after stopping for credits (or its key's daily cap): it may be taken up where it stopped. */
export const isResumable = (status: string, stoppedReason: string | null) =>
  status === "completed" && (stoppedReason === "insufficient_credits" || stoppedReason === "key_spend_cap");

/** Each action, open or not (redelivery also needs the run's webhook, which its state does not tell). */
export function openActions(job: RunState): Record<RunAction, boolean> {
  const going = isGoing(job.status);
  const empty = (job.status === "cancelled" || job.status === "failed") && job.processed === 0;
  return {
    cancel: going,
    resume: isResumable(job.status, job.stopped_reason),
    download: !going && !empty,
    redeliver: !going,
  };
}
