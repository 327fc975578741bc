import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { OperationExample } from "../src/http/openapi";

/**
 * `npm run openapi:examples` (scripts/record-examples.mjs) runs the workerd tests with OPENAPI_RECORD set: every
 * successful answer a test receives through `fetchChecked` (or `call`) is kept here by operation, and test/setup.ts
 * sends the file's to the Node-side desk (test/fixtures/openapi-desk.ts) after its tests; the script then picks one
 * per operation into src/surfaces/api/recorded-examples.json, the examples the served document shows.
 */
export interface RecordedAnswer {
  /** `POST /api/v1/email`, as the document names the operation. */
  operation: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The request body as sent (a JSON string), if any. */
  request: unknown;
  status: number;
  response: unknown;
}

/** At most this many answers per operation and file: the script chooses among them. */
const PER_OPERATION = 8;
const recorded = new Map<string, OperationExample[]>();

function bodyOf(request: unknown): unknown {
  if (typeof request !== "string") return undefined;
  try {
    return JSON.parse(request);
  } catch {
    return undefined;
  }
}

export function recordAnswer(answer: RecordedAnswer): void {
  const list = recorded.get(answer.operation) ?? [];
  if (list.length >= PER_OPERATION) return;
  const body = bodyOf(answer.request);
  list.push({
    summary: expect.getState().currentTestName ?? "",
    ...(Object.keys(answer.params).length ? { params: answer.params } : {}),
    ...(Object.keys(answer.query).length ? { query: answer.query } : {}),
    ...(body === undefined ? {} : { body }),
    status: answer.status,
    response: answer.response,
  });
  recorded.set(answer.operation, list);
}

/** Sends this file's recorded answers to the desk (only when recording). */
export async function sendRecordedAnswers(): Promise<void> {
  if (!env.OPENAPI_RECORD || recorded.size === 0) return;
  await fetch(`${env.OPENAPI_DESK_URL}/examples`, {
    method: "POST",
    body: JSON.stringify(Object.fromEntries(recorded)),
  });
  // Files share one runtime per worker (`isolate: false`): the next file sends only its own.
  recorded.clear();
}
