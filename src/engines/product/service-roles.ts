import type { RefreshableDataset } from "../datasets/refreshable";
import type { FeedbackShape } from "../lists/feedback-shape";
import type { BulkShape, MonitorShape } from "./shapes";
import type { SuppressingProduct, WalkProduct } from "./walk-roles";

/**
 * A product's roles beyond the walk: the engines' routes and jobs (bulk runs, monitors, feedback, dataset refresh, its
 * own queue messages). A member is declared only by the products that have the feature; those used by one product only
 * are marked. Each engine takes the role it uses.
 */

/** Bulk runs: the rows go through the walk, and are written out as CSV. */
export interface BulkProduct<In = unknown, Out = unknown> extends WalkProduct<In, Out> {
  bulk?: BulkShape<Out>;
}

/**
 * Monitors: each run goes through the walk, and compares the answers with the baseline (why an entry changed read from
 * the sources the product declares `checked` and `partners`).
 */
export interface MonitorProduct<In = unknown, Out = unknown>
  extends WalkProduct<In, Out>,
    Pick<DatasetProduct, "checked" | "partners"> {
  monitor?: MonitorShape<In, Out>;
}

/** Delivery feedback, which may put values on the suppression list. */
export interface FeedbackProduct<In = unknown, Out = unknown> extends SuppressingProduct<In, Out> {
  /** Delivery feedback: `POST /{product}/feedback`, its summary and the senders' inbound webhooks. */
  feedback?: FeedbackShape<In, Out>;
}

/** The datasets a product's answers cite, and those the scheduled refresh keeps current. */
export interface DatasetProduct {
  /** Dataset names this product's answers may cite in `sources`. */
  datasets: readonly string[];
  /** Datasets the scheduled refresh keeps current from their publishers (src/engines/datasets/refreshable.ts). */
  refreshable?: readonly RefreshableDataset[];
  /**
   * Of `datasets`, those whose version is the time of a check or of the account's own list (live DNS, a mailbox check,
   * the account's IP lists): a monitor reads their moving as a recheck, not a dataset released anew.
   */
  checked?: readonly string[];
  /** Of `datasets`, those a partner answers (its version is when it was asked): a monitor's `partner` change reason. */
  partners?: readonly string[];
}

/** Email only: its own events and queue messages. */
export interface MessagesProduct {
  /** Email only: sample bodies of its own events for test deliveries (`email.settled`), built like the real ones. */
  sampleEvents?: Partial<Record<string, () => string>>;
  /** Email only: queue messages the product handles itself, by `type` (`recheck`, its settling re-checks). */
  messages?: Record<string, (env: Env, message: { type: string }) => Promise<void>>;
  /**
   * Email only: queue messages whose every copy in one delivered batch is handled at once, by `type` (one write for
   * the lot: `mailbox_answers`, its shared handshake answers); the handler must be idempotent.
   */
  batchedMessages?: Record<string, (env: Env, messages: readonly { type: string }[]) => Promise<void>>;
}
