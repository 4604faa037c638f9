/**
 * @module `kneeboard run --repeat 3` on a searched config against a real reference server: three
 * searched runs stored, whose standing gives capacity and knee as the median of the runs' searched
 * answers with its interval, and whose spend the server's own log confirms.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunDocument } from "@kneeboard/core/run";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { medianOfSorted, standings } from "@kneeboard/core/standing";
import { FolderStore } from "@kneeboard/core/store/folder";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFolder, exitProblems, filesUnder, kneeboardHere } from "./cli-harness.ts";

/**
 * 16 slots, a step of 3 + 0.75 x N ms: one stream at 1000 / (3 + 0.75 N) tok/s, 167 at N = 4 (a third
 * over the SLO's 125, so `from` meets however busy the machine), 133 at 6 and 121 at 7 (the boundary).
 */
const PROFILE = { stepBaseMs: 3, stepPerSeqMs: 0.75, slots: 16, prefillBaseMs: 2, prefillPerTokenMs: 0 };
const dir = mkdtempSync(join(tmpdir(), "kneeboard-search-repeat-"));
const { writeConfig } = configFolder("kneeboard-search-repeat-config-");
let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({ recordPrompts: true, models: [{ kind: "model", id: "m", profile: PROFILE }] });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("kneeboard run --repeat on a searched config", () => {
  it("stores K searched runs whose standing gives capacity and knee over them, with the interval", async () => {
    const data = join(dir, "data");
    const file = writeConfig("searched.json", {
      targets: [{ id: "s", label: "s", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
      workload: {
        // From 4: a level that meets draws 64 requests (the TTFT bound's floor, docs/methodology.md), so
        // the search starts where that is quick; to 16 keeps each run to a few seconds.
        concurrency: { search: { from: 4, to: 16, resolution: 0.2, maxRequestsPerLevel: 64 } },
        requestsPerLevel: 16,
        warmupRequests: 1,
        maxTokens: 16,
        slo: { minOutputTokensPerSecond: 125, maxTtftMs: 2000 },
        canary: false,
      },
    });

    const { code } = await kneeboardHere(["run", "--config", file, "--data", data, "--repeat", "3"]);

    const runs = filesUnder(join(data, "runs")).map((f) => JSON.parse(readFileSync(f, "utf8")) as RunDocument);
    expect(exitProblems([code], runs)).toEqual([]);
    expect(runs).toHaveLength(3);
    const searches = runs.map((r) => r.summary.search);
    for (const s of searches) expect(s).toMatchObject({ axis: "concurrency", from: 4, to: 16 });
    // The server's own log: every chat request it received is one the searches say they spent.
    expect(server.requests).toHaveLength(searches.reduce((sum, s) => sum + (s?.requests ?? 0), 0));

    const entries = await new StoreRunIndex(new FolderStore(data)).entries();
    const standing = standings(entries, { now: new Date().toISOString() }).get("s");
    expect(standing?.runIds).toHaveLength(3);
    const over = standing?.search;
    // Each run's own answers, as its document records them: the standing's median and interval are of these.
    const capacities = searches.map((s) => s?.capacity.value ?? null);
    // N = 4 meets by a third of the SLO in every run: each run has a capacity, so all three enter.
    expect(capacities.every((c) => c !== null && c >= 4)).toBe(true);
    const sorted = (capacities as number[]).sort((a, b) => a - b);
    // Three runs: the interval is their range (medianIntervalRank(3) = 1; 75 % coverage, as the standing states for n < 6).
    expect(over?.capacity.estimate).toEqual({
      median: medianOfSorted(sorted),
      low: sorted[0],
      high: sorted[2],
      n: 3,
    });
    expect(over?.capacity.runs).toBe(3);
    expect(over?.capacity.found).toBe(searches.filter((s) => s?.capacity.status === "found").length);
    expect(over?.capacity.undecided).toBe(searches.filter((s) => s?.capacity.status === "undecided").length);
    const knees = searches.flatMap((s) => (s?.knee.value === null || s === null ? [] : [s.knee.value]));
    expect(over?.knee.runs).toBe(3);
    expect(over?.knee.estimate?.n ?? 0).toBe(knees.length);
    expect(over?.axis).toBe("concurrency");
  }, 120_000);
});
