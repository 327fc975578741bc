import { applyD1Migrations, env } from "cloudflare:test";
import { afterAll, beforeAll } from "vitest";
import { checkedResponses, prepareRecording } from "./openapi-check";
import { sendRecordedAnswers } from "./openapi-record";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.REFERENCE_ADDRESS, env.TEST_ADDRESS_MIGRATIONS);

// `OPENAPI_COVERAGE=1 npx vitest run --project worker` prints, per test file, which documented responses were checked.
afterAll(() => {
  if (env.OPENAPI_COVERAGE) console.log(`openapi-coverage ${JSON.stringify([...checkedResponses])}`);
});

// `npm run openapi:examples`: the real answers this file received, as candidate examples (test/openapi-record.ts).
beforeAll(prepareRecording);
afterAll(sendRecordedAnswers);
