/**
 * @module `kneeboard plan`'s bound on a search (docs/methodology.md#searched-levels): the search's own
 * state machine on its worst path, each level at its cap, within its budget. It grows with `to`, and
 * searches on the batch decoder (seeded, in a manual scheduler's time) over several ranges send no more
 * than it, by the decoder's own count.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { checkSearchBudget, planTarget } from "@kneeboard/core/plan";
import { loadPosition } from "@kneeboard/core/run";
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

describe("a budget that cannot pay for the TTFT bound", () => {
  // The known route searched from 4 to 8 under the default TTFT limit: its default budget, the ladder
  // 4, 8's 130, pays for deciding capacity 5 on speed (4, 8, 6 and 5 at their first looks, each with its
  // other N - 1 requests in flight then, and a warm-up: 117 requests) but not for 5's ramp and the 63
  // TTFTs whose largest bounds p95 (170 in all).
  const workload = { requestsPerLevel: 64, concurrency: { search: { from: 4, to: 8, resolution: 0.1 } } };
  const line =
    "the search's budget of 130 requests (maxRequests, by default the doubling ladder's over 4..8) cannot pay for the TTFT p95 bound at the capacity's probe for a capacity of 5 or 6: at 5 the search spends at least 170 requests, warm-ups included, before that probe has bounded TTFT p95 under the limit of 2000 ms (117 deciding it on speed alone), so that probe would end undecided on what is left of the budget, and capacity with it; raise maxRequests to at least 170, or set slo.maxTtftMs to null to judge speed alone";

  it("plan and run warn, naming what to raise; at that budget the capacity's probe cannot reach its TTFT look, at the figure named it does", async () => {
    const { dir, writeConfig } = configFolder("kneeboard-search-budget-");
    const file = writeConfig("budget.json", {
      targets: [{ id: "a", label: "a", baseURL: "http://127.0.0.1:9/v1", model: "m", route: { gateway: "direct" } }],
      workload,
    });
    const plan = await kneeboardHere(["plan", "--config", file]);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain(`  warning: ${line}\n`);
    const run = await kneeboardHere(["run", "--config", file, "--data", join(dir, "data")]);
    expect(run.out).toContain(`warning: workload.concurrency.search.maxRequests (target a, scenario chat): ${line}\n`);

    // What the warning says, on the route (seeded): at 130, 5's probe cannot reach the look at which its
    // TTFT can first be bounded (its ramp and 63: 73), ends undecided on what is left, and capacity with
    // it; at 170 it reaches that look (whether it decides there is the route's noise), and plan says nothing.
    const at = async (maxRequests?: number) => {
      const search = { ...workload.concurrency.search, ...(maxRequests ? { maxRequests } : {}) };
      return inMemory(7, { ...workload, concurrency: { search }, slo: { minOutputTokensPerSecond: 24 } });
    };
    const five = (d: Awaited<ReturnType<typeof at>>) => d.doc.levels.find((l) => loadPosition(l.load) === 5)?.probe;
    // (N = 1 alone first, outside the search and its budget: 64 and a warm-up.)
    const searchSpent = (d: Awaited<ReturnType<typeof at>>) => d.counts.received - 65;
    const short = await at();
    expect(five(short)?.decision).toBe("undecided");
    expect(five(short)?.requests as number).toBeLessThan(73);
    expect(short.doc.summary.search?.capacity).toMatchObject({ lo: 4, hi: 5, status: "undecided" });
    expect(short.doc.summary.search?.stop.detail).toContain("no probe at 4 or above bounded TTFT p95");
    expect(searchSpent(short)).toBeLessThanOrEqual(130);
    const paid = await at(170);
    expect(five(paid)?.requests as number).toBeGreaterThanOrEqual(73);
    expect(searchSpent(paid)).toBeLessThanOrEqual(170);
    const raised = setup({
      ...workload,
      concurrency: { search: { ...workload.concurrency.search, maxRequests: 170 } },
    });
    expect(checkSearchBudget(raised.workload)).toBeNull();
  }, 120_000);

  it("says nothing without a TTFT limit, or where the default budget pays (1..8)", () => {
    expect(checkSearchBudget(setup({ ...workload, slo: SLO }).workload)).toBeNull();
    expect(
      checkSearchBudget(setup({ concurrency: { search: { from: 1, to: 8, resolution: 0.1 } } }).workload),
    ).toBeNull();
  });
});
