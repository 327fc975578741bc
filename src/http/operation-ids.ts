/**
 * Operation ids (the `operationId` of every operation in the OpenAPI document) are camelCase, verb first:
 * `verifyEmail`, `listEmailBulkRuns`, `getLedger`. Each route gives its own in its `describe({...})`
 * (src/http/openapi.ts) or its lookup declaration (src/products/<name>/declarations.ts); the document refuses a route
 * without one, and test/http/operation-ids.test.ts checks they are unique. A tool of the tool protocol that stands for
 * one operation is named by it mechanically, snake_case (`verifyEmail` <-> `verify_email`); a tool that takes the
 * product as an argument stands for the operation with the product after the verb (`start_bulk_run` with
 * `product: "email"` <-> `startEmailBulkRun`). docs/agents.md says the same to users.
 */

const pascal = (name: string) =>
  name
    .split(/[_-]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");

/** The operation id of a route every product (or monitor family) has: `list` + `email_domain` + `Monitors`. */
export const productOperationId = (verb: string, product: string, noun: string): string =>
  `${verb}${pascal(product)}${noun}`;

/** The tool name of an operation id: `verifyEmail` -> `verify_email`. */
export const toolNameOf = (operationId: string): string =>
  operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
