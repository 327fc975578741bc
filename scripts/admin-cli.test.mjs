import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Where the CLI remembers refused tokens: a directory of this run's own. */
const stateDir = mkdtempSync(join(tmpdir(), "admin-cli-test-"));

/** Runs the CLI against `url` and resolves its exit status and output. */
function admin(args, url = "http://127.0.0.1:9", token = "t") {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/admin.mjs", ...args], {
      env: { ...process.env, ADMIN_URL: url, ADMIN_TOKEN: token, ADMIN_CLI_STATE_DIR: stateDir },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout: stdout.trim(), stderr }));
  });
}

/** An operator API that already holds acc_1 for taken@example.com, answering as src/surfaces/api/admin does. */
async function operatorApi() {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const send = (status, body) =>
      res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    if (req.headers.authorization !== "Bearer t")
      return send(401, { success: false, error: { code: "UNAUTHENTICATED", message: "Send the operator token." } });
    if (req.method === "POST" && req.url === "/admin/v1/accounts") {
      return send(422, {
        success: false,
        error: {
          code: "VALIDATION_FAILED",
          message: "The request has invalid fields.",
          errors: { email: ["An account with this email already exists."] },
        },
      });
    }
    if (req.method === "GET" && req.url === "/admin/v1/accounts?email=taken%40example.com")
      return send(200, { success: true, data: { id: "acc_1", email: "taken@example.com" } });
    send(404, { success: false, error: { code: "NOT_FOUND", message: "Account not found." } });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("admin CLI: re-running the README sequence", () => {
  it("an empty argument (a failed command substitution) is a usage error naming it, before any request", async () => {
    const run = await admin(["add-member", "", "--email", "you@example.com"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("add-member: ID is empty");
  });

  it("create-account of an existing email prints the existing account (--get data.id works twice)", async () => {
    const api = await operatorApi();
    try {
      const run = await admin(
        ["--get", "data.id", "create-account", "--email", "taken@example.com", "--verified"],
        api.url,
      );
      expect([run.status, run.stdout]).toEqual([0, "acc_1"]);
      expect(run.stderr).toContain("already exists");
      expect(api.seen).toEqual(["POST /admin/v1/accounts", "GET /admin/v1/accounts?email=taken%40example.com"]);
      const missing = await admin(["find-account", "--email", "nobody@example.com"], api.url);
      expect([missing.status, missing.stderr.includes("HTTP 404")]).toEqual([1, true]);
    } finally {
      await api.close();
    }
  });
});

describe("admin CLI: a wrong operator token", () => {
  it("is sent once: the CLI does not repeat a token the server refused (10 wrong ones close the address)", async () => {
    const api = await operatorApi();
    try {
      const first = await admin(["get-account", "acc_1"], api.url, "stale-token");
      expect([first.status, first.stderr.includes("HTTP 401")]).toEqual([1, true]);
      expect(first.stderr).toContain("refused the operator token from the ADMIN_TOKEN environment variable");
      for (let i = 0; i < 3; i++) {
        const again = await admin(["get-account", "acc_1"], api.url, "stale-token");
        expect(again.status).toBe(1);
        expect(again.stderr).toContain("not sending it again for 15 minutes");
      }
      expect(api.seen).toEqual(["GET /admin/v1/accounts/acc_1"]);
      // The right token goes through at once.
      const fixed = await admin(["--get", "data.id", "find-account", "--email", "taken@example.com"], api.url, "t");
      expect([fixed.status, fixed.stdout]).toEqual([0, "acc_1"]);
      expect(api.seen).toHaveLength(2);
    } finally {
      await api.close();
    }
  });
});
