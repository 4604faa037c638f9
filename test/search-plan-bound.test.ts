/**
 * @module `kneeboard plan`'s bound on a search (docs/methodology.md#searched-levels): the search's own
 * state machine on its worst path, each level at its cap, within its budget. It grows with `to`, and
 * searches on the batch decoder (seeded, in a manual scheduler's time) over several ranges send no more
 * than it, by the decoder's own count.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { planTarget } from "@kneeboard/core/plan";
import { searchLevelBound } from "@kneeboard/core/search/bounds";
import { describe, expect, it } from "vitest";
import { configFolder, kneeboardHere } from "./cli-harness.ts";
import { inMemory, SLO, setup } from "./search-harness.ts";

const search = (from: number, to: number, more: Record<string, unknown> = {}) => ({
  concurrency: { search: { from, to, resolution: 0.1, ...more } },
  slo: SLO,
});

describe("plan's bound on a search", () => {
  it("grows with to: levels over every to from 2 to 80, and requests from 1..32 to 1..33", () => {
    let before = 0;
    for (let to = 2; to <= 80; to++) {
      const levels = searchLevelBound({ from: 1, to, resolution: 0.1, whole: true });
      expect(levels).toBeGreaterThanOrEqual(before);
      before = levels;
    }
    // Issue 55: the bound had 1..33 at 7 levels and 1..32 at 14 (sized from the top ladder step).
    const bound = (to: number) => {
      const { config, target } = setup(search(1, to, { maxRequests: 100_000 }));
      return planTarget(config, target).search;
    };
    expect(bound(32)?.levels).toBe(13);
    expect(bound(33)?.levels).toBe(14);
    expect(bound(33)?.requests as number).toBeGreaterThanOrEqual(bound(32)?.requests as number);
  });

  it("a search over several ranges sends no more than the plan's bound, by the server's count", async () => {
    const rows = [];
    for (const [from, to] of [
      [1, 8],
      [1, 32],
      [1, 33],
      [4, 64],
      [2, 20],
    ] as const)
      for (const budget of [undefined, 100_000]) {
        const workload = search(from, to, budget === undefined ? {} : { maxRequests: budget });
        const { config, target } = setup(workload);
        const plan = planTarget(config, target).search;
        const { doc, counts } = await inMemory(from * 100 + to, workload);
        expect(doc.summary.search?.requests).toBe(counts.received);
        expect(counts.received).toBeLessThanOrEqual(plan?.requests as number);
        expect(doc.levels.length).toBeLessThanOrEqual(plan?.levels as number);
        rows.push(
          `${from}..${to}${budget ? " (no budget)" : ""}: sent ${counts.received} in ${doc.levels.length} levels, bound ${plan?.requests} in ${plan?.levels}`,
        );
      }
    console.log(rows);
  }, 120_000);
});

describe("a cap that cannot decide", () => {
  // Issue 55: a search beside requestsPerLevel 8 (cap 32) under the default TTFT limit ran, stored a
  // bound of -1.9e15 tok/s and said the boundary lay near its cap.
  it("is refused by plan and run (exit 2, nothing written), naming the cap and what to raise", async () => {
    const { dir, writeConfig } = configFolder("kneeboard-search-cap-");
    const file = writeConfig("small.json", {
      targets: [{ id: "a", label: "a", baseURL: "http://127.0.0.1:9/v1", model: "m", route: { gateway: "direct" } }],
      workload: { requestsPerLevel: 8, concurrency: { search: { from: 4, to: 32, resolution: 0.1 } } },
    });
    for (const command of ["plan", "run"]) {
      const data = join(dir, `data-${command}`);
      const { code, out } = await kneeboardHere([
        command,
        "--config",
        file,
        ...(command === "run" ? ["--data", data] : []),
      ]);
      expect(code).toBe(2);
      expect(out).toContain("workload.concurrency.search.maxRequestsPerLevel (target a, scenario chat)");
      expect(out).toContain("the search's cap of 32 measured requests a level");
      expect(out).toContain('cannot decide a level at from (4): a "meets" there needs 71');
      expect(out).toContain("raise requestsPerLevel to 18 or maxRequestsPerLevel to 71");
      expect(existsSync(data)).toBe(false);
    }
  });

  it("below what `to` needs, plan warns up to which load a level can be called met", async () => {
    const { writeConfig } = configFolder("kneeboard-search-cap-warn-");
    const file = writeConfig("warn.json", {
      targets: [{ id: "a", label: "a", baseURL: "http://127.0.0.1:9/v1", model: "m", route: { gateway: "direct" } }],
      workload: { requestsPerLevel: 24, concurrency: { search: { from: 1, to: 64, resolution: 0.1 } } },
    });
    const { code, out } = await kneeboardHere(["plan", "--config", file]);
    expect(code).toBe(0);
    expect(out).toContain('can call a level met only up to about 16: at to (64) a "meets" needs 256');
  });
});
