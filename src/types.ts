import type { Admission } from "./limits/admission";

/** What a secret key can be limited to: a registered product's name, or `account` (the list: auth/scopes.ts). */
export type Scope = string;

/** Who is calling, once a key has been checked. */
export type Principal =
  | {
      kind: "secret";
      keyId: string;
      accountId: string;
      userId: string | null;
      scopes: Scope[];
      dailyCreditCap: number | null;
    }
  | { kind: "publishable"; keyId: string; accountId: string; dailyCreditCap: number | null }
  | { kind: "sandbox" };

export interface AppVariables {
  requestId: string;
  principal?: Principal;
  /** The request's rate limits, counted by its first call to the account's object (src/limits/admission.ts). */
  admission?: Admission;
  /** Credits this request charged; the request log records it. */
  creditsUsed?: number;
  /** Error code of a failed request, set by the error handler for the request log. */
  errorCode?: string;
  /** Work started once the answer is decided, under waitUntil (src/http/trace-answer.ts): settling, shared writes. */
  deferred?: DeferredWork[];
}

/**
 * Work a route deferred past its answer (a lookup's settlement and list writes). `ifFailed` replaces `work` when the
 * request ends in an error, or `failed` is set (a tool call of the /mcp request failed): a settlement then releases its
 * hold, and a request's refund gives back what it settled before its answer, so nothing is charged for an answer the
 * caller never got. `work` null: nothing to do unless it failed.
 */
export interface DeferredWork {
  work: (() => Promise<unknown>) | null;
  ifFailed?: (() => Promise<unknown>) | undefined;
  failed: boolean;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
