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
import { standings } from "@kneeboard/core/standing";
import { FolderStore } from "@kneeboard/core/store/folder";
import { type ReferenceServer, startReferenceServer } from "@kneeboard/reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFolder, exitProblems, filesUnder, kneeboardHere } from "./cli-harness.ts";

/**
 * 16 slots, a step of 14 + 1 x N ms: one stream at 1000 / (14 + N) tok/s, 45.5 at N = 8 (14 % over the
 * SLO's 40, so `from` meets however busy the machine), 38.5 at 12 and 33.3 at 16 (both under it).
 * 16 tokens an answer: streams of 350 ms or more, so a loaded machine's client delay stays within 3 %
 * of them and the levels are valid.
 */
const PROFILE = { stepBaseMs: 14, stepPerSeqMs: 1, slots: 16, prefillBaseMs: 2, prefillPerTokenMs: 0 };
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
        // Per-stream speed alone (no TTFT limit): a level is decided on its 2N ramp and two groups of N
        // (32 requests at N = 8, docs/methodology.md); with a TTFT limit a meet must draw 63 after the
        // ramp. To 16 and a resolution of 0.5 (8 to 12, one bisection) keep each run to a few seconds:
        // 8, 16, then 12.
        // Its budget is set: the ladder 8, 16 (66 requests) is below what a search of three levels needs.
        concurrency: { search: { from: 8, to: 16, resolution: 0.5, maxRequestsPerLevel: 64, maxRequests: 400 } },
        requestsPerLevel: 32,
        warmupRequests: 1,
        maxTokens: 16,
        ignoreEos: true,
        slo: { minOutputTokensPerSecond: 40, maxTtftMs: null },
        canary: false,
      },
    });

    const { code, out } = await kneeboardHere(["run", "--config", file, "--data", data, "--repeat", "3"]);

    const runs = filesUnder(join(data, "runs")).map((f) => JSON.parse(readFileSync(f, "utf8")) as RunDocument);
    expect(exitProblems([code], runs)).toEqual([]);
    expect(runs).toHaveLength(3);
    // The terminal says each run's answer: capacity's bracket and confidence, the knee's, the stop and the spend against the ladder.
    for (const r of runs) {
      const s = r.summary.search;
      expect(out).toContain(
        `searched capacity: ${s?.capacity.value ?? "-"} in [${s?.capacity.lo ?? "-"}, ${s?.capacity.hi ?? "-"}] users`,
      );
      expect(out).toContain(`search stop: ${s?.stop.reason}: ${s?.stop.detail}`);
      expect(out).toContain(`search spent: ${s?.requests} requests`);
    }
    expect(out.match(/at 95 % confidence a level; knee: /g)).toHaveLength(3);
    expect(out.match(/the doubling ladder 8\.\.16 sends 66/g)).toHaveLength(3);
    const searches = runs.map((r) => r.summary.search);
    for (const s of searches) expect(s).toMatchObject({ axis: "concurrency", from: 8, to: 16 });
    // The server's own log: every chat request it received is one the searches say they spent.
    expect(server.requests).toHaveLength(searches.reduce((sum, s) => sum + (s?.requests ?? 0), 0));

    const entries = await new StoreRunIndex(new FolderStore(data)).entries();
    const standing = standings(entries, { now: new Date().toISOString() }).get("s");
    // The runs that enter a standing are the complete ones with a valid level: all three, unless a
    // loaded machine's client flagged every level of one. Such a run is let off only for that reason:
    // `exitProblems` holds each flag to the level's figures, and every request of it came back ok.
    const failed = runs.filter((r) => r.status === "failed");
    for (const run of failed) for (const l of run.levels) expect(l.requests.ok).toBe(l.requests.sent);
    const entered = runs.filter((r) => r.status === "complete" && r.levels.some((l) => l.valid));
    expect(entered.length).toBe(3 - failed.length);
    expect(entered.length).toBeGreaterThan(0);
    expect([...(standing?.runIds ?? [])].sort()).toEqual(entered.map((r) => r.runId).sort());
    const over = standing?.search;
    expect(over?.axis).toBe("concurrency");
    // Each run's own answer, as its document records it: the standing's median and interval are of these.
    const capacities = entered.map((r) => r.summary.search?.capacity.value ?? null);
    // N = 8 meets by 14 % in every run: each run has a capacity, so every entered run counts.
    expect(capacities.every((c) => c !== null && c >= 8)).toBe(true);
    const sorted = (capacities as number[]).sort((a, b) => a - b);
    const n = sorted.length;
    // The median worked out here, not by the standing's own function: the middle value, or the mean of
    // the middle two; up to 5 runs the interval is their range (75 % coverage at n = 3).
    const median = n % 2 === 1 ? sorted[(n - 1) / 2] : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
    expect(over?.capacity.estimate).toEqual({ median, low: sorted[0], high: sorted.at(-1), n });
    const statuses = entered.map((r) => r.summary.search?.capacity.status);
    expect(over?.capacity).toMatchObject({
      runs: n,
      found: statuses.filter((s) => s === "found").length,
      undecided: statuses.filter((s) => s === "undecided").length,
    });
    const knees = entered.flatMap((r) => (r.summary.search?.knee.value == null ? [] : [r.summary.search.knee.value]));
    expect(over?.knee.runs).toBe(entered.length);
    expect(over?.knee.estimate?.n ?? 0).toBe(knees.length);
  }, 120_000);
});
