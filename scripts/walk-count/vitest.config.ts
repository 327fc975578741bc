import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectConfiguration } from "vitest/config";
import base from "../../vitest.config.ts";
import { instrumentProject } from "./instrument.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = (base.test!.projects as Extract<TestProjectConfiguration, { test?: unknown }>[])[0]!;

/** The worker project with src/ and durable-objects/ instrumented, running only the walk's trace. */
export default defineConfig({
  root,
  test: {
    projects: [
      {
        ...worker,
        root,
        plugins: [instrumentProject(root), ...(worker.plugins ?? [])],
        test: { ...worker.test, name: "walk-count", include: ["scripts/walk-count/walk.trace.ts"], exclude: [] },
      },
    ],
  },
});
