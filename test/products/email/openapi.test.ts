import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

type Operation = {
  security: unknown[];
  requestBody?: { content: { "application/json": { schema: { properties?: Record<string, unknown> } } } };
  responses: Record<string, unknown>;
};

it("documents the policy, feedback and monitor routes in the served OpenAPI document", async () => {
  const doc = (await (await SELF.fetch("https://api.test/api/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
  expect(methods("/api/v1/email/policy")).toEqual(["delete", "get", "put"]);
  expect(methods("/api/v1/email/feedback")).toEqual(["post"]);
  expect(methods("/api/v1/email/feedback/summary")).toEqual(["get"]);
  expect(methods("/api/v1/email/feedback/{provider}/{feedbackKey}")).toEqual(["post"]);
  expect(methods("/api/v1/email/monitors")).toEqual(["get", "post"]);
  expect(methods("/api/v1/email/monitors/{monitorId}")).toEqual(["delete", "get", "patch"]);
  expect(methods("/api/v1/email/domain-monitors/{monitorId}/run")).toEqual(["post"]);
  const put = doc.paths["/api/v1/email/policy"]!.put!;
  expect(Object.keys(put.requestBody!.content["application/json"].schema.properties!)).toEqual(
    expect.arrayContaining(["disposable", "role", "risk_level", "allowed_domains", "blocked_domains"]),
  );
  const inbound = doc.paths["/api/v1/email/feedback/{provider}/{feedbackKey}"]!.post!;
  expect(inbound.security).toEqual([]);
  expect(Object.keys(inbound.responses)).toEqual(expect.arrayContaining(["200", "401", "404"]));
  expect(doc.paths["/api/v1/email/feedback"]!.post!.security).toEqual([{ secretKey: [] }]);
});
