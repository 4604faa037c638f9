/**
 * @module The capacity search's acceptance tests (issue 44, "What must hold") on the batch decoder of
 * `@kneeboard/test-support/batch-decoder` in a manual scheduler's exact time, many seeded runs: the
 * same decoder the real-HTTP test serves (test/search-capacity-http.test.ts). 16 sequences decode at
 * once (more queue), a step lasts 20 + 4 x active ms off by a seeded +-5 %, 32 tokens an answer, one
 * request in 200 breaks. A closed loop of N users measures 1000 / (20 + 4N) tok/s a stream: at 24 tok/s
 * the true capacity is 5. Counts and decisions are asserted.
 */
import { readFileSync } from "node:fs";
import { kneeIndex } from "@kneeboard/core/metrics";
import { type Level, loadPosition, type RunDocument } from "@kneeboard/core/run";
import { type DecoderCounts, perStreamAt } from "@kneeboard/test-support/batch-decoder";
import { describe, expect, it } from "vitest";
import { expectBrokenAccounted, inMemory, loads, measured, ROUTE, SLO } from "./search-harness.ts";

const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);
/** The ladder 1, 2, 4, ..., 64 at requestsPerLevel 64: 7 levels of 64 measured requests. */
const LADDER_MEASURED = 7 * 64;
const RESOLUTION = 0.1;
/** The open loop's margin beyond the resolution (docs/methodology.md#searched-levels): Poisson noise moves the boundary by about a 10 % step. */
const OPEN_LOOP_MARGIN = 0.1;
/** The methodology's text, lines joined: a sentence wrapped over lines reads as one. */
const methodology = readFileSync(new URL("../docs/methodology.md", import.meta.url), "utf8").replace(/\s+/g, " ");

/** The 10 seeded searches 1 to 64, run once for the tests that read them. */
let seededSearches: Promise<{ seed: number; doc: RunDocument; counts: DecoderCounts }[]> | null = null;
function searchesFrom1To64() {
  seededSearches ??= (async () => {
    const runs = [];
    for (const seed of SEEDS)
      runs.push({
        seed,
        ...(await inMemory(seed, { concurrency: { search: { from: 1, to: 64, resolution: RESOLUTION } }, slo: SLO })),
      });
    return runs;
  })();
  return seededSearches;
}

/** Within the resolution of `value`: one user, or 10 % where that is wider. */
function withinResolution(found: number, value: number): boolean {
  return Math.abs(found - value) <= Math.max(1, RESOLUTION * value);
}

describe("the search on the route of known capacity (closed loop)", () => {
  it("10 seeded searches 1 to 64: capacity 5 in at least 9, capacity and knee together under the ladder's 448 measured requests", async () => {
    const runs = (await searchesFrom1To64()).map(({ doc, counts }) => {
      const search = doc.summary.search;
      // Every request the decoder received is in the search's count, warm-ups included.
      expect(search?.requests).toBe(counts.received);
      expectBrokenAccounted(doc, counts);
      expect(new Set(loads(doc.levels)).size).toBe(doc.levels.length);
      return { search, measured: measured(doc) };
    });
    console.log(
      "10 seeded searches 1..64:",
      runs.map(
        ({ search: s, measured: m }) =>
          `capacity ${s?.capacity.value} (${s?.capacity.status}), knee ${s?.knee.value}, ${m} measured, ${s?.requests} sent, ${s?.stop.reason}`,
      ),
    );
    // A request at N = 5 measures 25.0 tok/s +- 0.13 (the +-5 % of 32 steps), at N = 6 22.7: the SLO is
    // over 7 of those standard errors from either, so a wrong decision is rare; 9 of 10 allows one.
    expect(
      runs.filter((r) => r.search?.capacity.value === 5 && r.search.capacity.status === "found").length,
    ).toBeGreaterThanOrEqual(9);
    for (const r of runs) {
      expect(r.search?.capacity.lo).toBe(r.search?.capacity.value);
      expect(r.measured).toBeLessThan(LADDER_MEASURED);
    }
  }, 120_000);

  // The bar with the default TTFT limit in the SLO (p95 <= 2 s), on its route as it states it (no
  // broken streams): TTFT p95 is bounded once, at the capacity bisection's level that meets (5: its ramp
  // and 63 requests), and the levels below take its `meets`; so the search stays under the ladder's 448
  // measured requests, within its default budget (the ladder's 455 sent, warm-ups included).
  it("with TTFT p95 <= 2 s in the SLO, 10 seeded searches 1 to 64 (no broken streams): capacity 5, knee 9 to 11, over-saturation named, under 448 measured", async () => {
    const runs = [];
    for (const seed of SEEDS) {
      const { doc, counts } = await inMemory(
        seed,
        { concurrency: { search: { from: 1, to: 64, resolution: RESOLUTION } }, slo: { ...SLO, maxTtftMs: 2000 } },
        { ...ROUTE, faultEvery: 0 },
      );
      const search = doc.summary.search;
      expect(search?.requests).toBe(counts.received);
      expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
      expect(search?.knee.value as number).toBeGreaterThanOrEqual(9);
      expect(search?.knee.value as number).toBeLessThanOrEqual(11);
      expect(search?.stop.detail).toMatch(/over-saturated from 32/);
      expect(measured(doc)).toBeLessThan(LADDER_MEASURED);
      // TTFT is bounded at 5 alone, at the look put where it first can be (its ramp and 63).
      const bounded = doc.levels.filter((l) => l.probe?.ttftP95UpperMs != null);
      expect(loads(bounded)).toContain(5);
      expect((doc.levels.find((l) => loadPosition(l.load) === 5) as Level).probe?.requests).toBe(73);
      runs.push(`capacity 5, knee ${search?.knee.value}, ${measured(doc)} measured, ${search?.requests} sent`);
    }
    console.log("TTFT p95 <= 2 s, 10 seeded searches 1..64, no broken streams:", runs);
  }, 120_000);

  // The same with one request in 200 broken: a broken request counts as a miss, its TTFT over any limit,
  // so at 5 the largest of 63 TTFTs bounds nothing when one of them broke (27 % of searches); the level
  // draws on to its retry look (147: the second largest of 137 bounds p95 at 15 % of the allowance), and
  // with two broken there (13 %) to what the budget leaves. Such a search stops at its budget with
  // capacity undecided in [4, 5] (seeds 3, 6 and 10): never a wrong capacity, never over the budget.
  it("with one stream in 200 broken: capacity 5 found or undecided in [4, 5] at the budget, never over it", async () => {
    const runs = [];
    for (const seed of SEEDS) {
      const { doc } = await inMemory(seed, {
        concurrency: { search: { from: 1, to: 64, resolution: RESOLUTION } },
        slo: { ...SLO, maxTtftMs: 2000 },
      });
      const search = doc.summary.search;
      expect(search?.requests as number).toBeLessThanOrEqual(search?.budget as number);
      if (search?.stop.reason === "budget")
        expect(search.capacity).toMatchObject({ lo: 4, hi: 5, status: "undecided" });
      else {
        expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
        expect(measured(doc)).toBeLessThan(LADDER_MEASURED);
      }
      runs.push(
        `${search?.capacity.value} ${search?.capacity.status}, ${search?.stop.reason}, ${search?.requests} sent`,
      );
    }
    console.log("TTFT p95 <= 2 s, one stream in 200 broken:", runs);
    expect(runs.filter((r) => r.startsWith("5 found")).length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  // The knee reads each probed level's steady aggregate (between the ramp's end and the last send): a
  // level cut short at its deciding look drains for about as long as it sent, and its whole-level
  // aggregate put the knee at 14 in 3 of these 10 seeds.
  it("the knee: each searched knee (to = 64) lies within its resolution of today's knee on a dense ladder 1..32", async () => {
    const { doc: dense } = await inMemory(1, { concurrency: Array.from({ length: 32 }, (_, i) => i + 1), slo: SLO });
    const denseKnee = dense.summary.kneeConcurrency as number;
    // Today's definition on the dense ladder: the smallest N within 15 % of the highest aggregate above it.
    const valid = dense.levels.filter((l) => l.valid);
    const k = kneeIndex(valid.map((l) => l.aggregateOutputTokensPerSecond as number)) as number;
    expect(loadPosition((valid[k] as Level).load)).toBe(denseKnee);
    expect(dense.summary.capacity).toBe(5);
    const knees = (await searchesFrom1To64()).map(({ doc }) => doc.summary.search?.knee);
    console.log(
      `dense ladder 1..32: knee ${denseKnee}; searched knees`,
      knees.map((x) => `${x?.value} [${x?.lo}, ${x?.hi}]`),
    );
    for (const knee of knees) {
      expect(knee?.status).toBe("found");
      expect(withinResolution(knee?.value as number, denseKnee)).toBe(true);
    }
  }, 120_000);

  it("the over-saturation stop: past the 16 slots TTFT climbs while aggregate stays flat; a search to 256 whose loose SLO every level meets stops there, saying so", async () => {
    // 0.5 tok/s a stream is met up to 256 users (there a stream waits 16 batches: 0.7 tok/s).
    const { doc, counts } = await inMemory(1, {
      // A budget over the ladder 1..256's: the stop under test is the queue's, not the budget's.
      concurrency: { search: { from: 1, to: 256, resolution: RESOLUTION, maxRequests: 5000 } },
      slo: { minOutputTokensPerSecond: 0.5, maxTtftMs: null },
    });
    const search = doc.summary.search;
    expect(search?.stop.reason).toBe("over_saturation");
    expect(search?.stop.detail).toMatch(/^over-saturated at \d+: /);
    const highest = Math.max(...loads(doc.levels));
    expect(highest).toBeLessThan(256);
    // No level missed: the stop is the queue's, not the SLO's.
    expect(doc.levels.every((l) => l.probe?.decision === "meets")).toBe(true);
    // The doubling that stopped: TTFT p50 more than 1.5 times a doubling, aggregate within 15 %.
    const doubling = [16, 32, 64].map((n) => doc.levels.find((l) => loadPosition(l.load) === n) as Level);
    for (let i = 1; i < doubling.length; i++) {
      const [a, b] = [doubling[i - 1] as Level, doubling[i] as Level];
      expect((b.ttftMs.p50 as number) / (a.ttftMs.p50 as number)).toBeGreaterThan(1.5);
      expect((b.aggregateOutputTokensPerSecond as number) / (a.aggregateOutputTokensPerSecond as number)).toBeLessThan(
        1.15,
      );
    }
    expect(highest).toBe(64);
    expect(search?.requests).toBe(counts.received);
    expectBrokenAccounted(doc, counts);
  }, 120_000);

  it("an undecided level: with the SLO exactly on N = 1's per-stream p50, it is never reported as met, and undecided at its cap in most seeds", async () => {
    // 41.67 tok/s: the median of 32000 / (32 steps of 24 ms, each off by a symmetric +-5 %) is exactly 1000 / 24.
    const slo = { minOutputTokensPerSecond: perStreamAt(ROUTE, 1), maxTtftMs: null };
    const decisions: string[] = [];
    for (const seed of SEEDS.slice(0, 5)) {
      const { doc, counts } = await inMemory(seed, {
        // A budget over the ladder 1..8's (260): the level on the SLO draws its cap of 256.
        concurrency: { search: { from: 1, to: 8, resolution: RESOLUTION, maxRequests: 2000 } },
        slo,
      });
      const one = doc.levels.find((l) => loadPosition(l.load) === 1) as Level;
      decisions.push(`${one.probe?.decision} at ${one.probe?.requests}`);
      expect(one.probe?.decision).not.toBe("meets");
      expect(doc.summary.capacity).toBeNull();
      expect(doc.summary.search?.capacity.value).toBeNull();
      expect(doc.summary.search?.requests).toBe(counts.received);
      if (one.probe?.decision === "undecided") {
        // At the cap (4 x requestsPerLevel), and the search says why.
        expect(one.probe.requests).toBe(256);
        expect(doc.summary.search?.capacity.status).toBe("undecided");
        expect(doc.summary.search?.stop.reason).toBe("undecided");
      }
    }
    console.log("N = 1 on the SLO exactly:", decisions);
    // A wrong `misses` is allowed 5 % a level: 0.25 of 5, and 1 more is within 2 standard errors (0.49).
    expect(decisions.filter((d) => d.startsWith("undecided")).length).toBeGreaterThanOrEqual(4);
  }, 120_000);

  // A closed loop's N users share the decoder's steps (and their jitter): at N = 5 the five streams of a
  // round decode the same 32 steps, five equal values for one draw of the noise. Taken as independent
  // requests (order statistics over all of them, as before), 6 of the first 10 seeds decided (4 `meets`, 2
  // `misses`). Judged on groups of N sends (docs/methodology.md#searched-levels), a wrong call is allowed
  // 5 % a level on each side: 2 of 40, and 2 standard errors of that count (1.38) more (150 seeds: 7
  // `meets`, 4.7 %, and 9 `misses`, 6.0 %, the rest undecided at the cap). (Seeds 1..10
  // alone called 2 `meets` once N = 1 ran first and moved the decoder's draws, one of them at its first
  // look on two rounds a hair apart: a t bound on two groups, 1 degree of freedom, is that loose.)
  it("a level at N = 5 exactly on the SLO: requests that share a round are one draw, so it is seldom decided", async () => {
    const slo = { minOutputTokensPerSecond: perStreamAt(ROUTE, 5), maxTtftMs: null };
    const decisions = [];
    for (const seed of Array.from({ length: 40 }, (_, i) => i + 1)) {
      const { doc } = await inMemory(seed, {
        concurrency: { search: { from: 4, to: 8, resolution: RESOLUTION, maxRequests: 2000 } },
        slo,
      });
      const five = doc.levels.find((l) => loadPosition(l.load) === 5) as Level;
      decisions.push(`${five.probe?.decision} at ${five.probe?.requests}`);
    }
    console.log("N = 5 on the SLO exactly:", decisions);
    expect(decisions.filter((d) => d.startsWith("meets")).length).toBeLessThanOrEqual(4);
    expect(decisions.filter((d) => d.startsWith("misses")).length).toBeLessThanOrEqual(4);
  }, 120_000);
});

describe("the search on the route of known capacity (open loop)", () => {
  it("Poisson: each seeded search's bracket, found or undecided, holds a dense ladder's boundary within the resolution and the stated 10 % margin", async () => {
    const slo = SLO;
    // The boundary on two dense ladders (seeded), 512 requests a rate: in each, between the highest rate
    // met below its first miss and that miss. Poisson noise moves a rate's per-stream p50 by about as much
    // as a step of 0.25 req/s does, so the two disagree: the band spans both.
    const rates = [2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.5];
    const band = { lo: Number.POSITIVE_INFINITY, hi: 0 };
    for (const seed of [1, 2]) {
      const { doc } = await inMemory(seed, {
        arrival: { mode: "poisson", seed, ratesPerSecond: rates },
        requestsPerLevel: 512,
        slo,
      });
      expect(doc.levels.every((l) => l.valid)).toBe(true);
      const firstMiss = doc.levels.findIndex((l) => !l.meetsSlo);
      expect(firstMiss).toBeGreaterThan(0);
      band.lo = Math.min(band.lo, loadPosition((doc.levels[firstMiss - 1] as Level).load));
      band.hi = Math.max(band.hi, loadPosition((doc.levels[firstMiss] as Level).load));
    }
    const tolerance = 1 + RESOLUTION + OPEN_LOOP_MARGIN;
    const outcomes = [];
    const capacities: (NonNullable<RunDocument["summary"]["search"]>["capacity"] | undefined)[] = [];
    for (const seed of SEEDS.slice(0, 6)) {
      const { doc, counts } = await inMemory(seed, {
        arrival: {
          mode: "poisson",
          seed,
          // A budget over the ladder's (390): the levels near the boundary draw to their caps.
          ratesPerSecond: { search: { from: 0.5, to: 16, resolution: RESOLUTION, maxRequests: 5000 } },
        },
        slo,
      });
      const capacity = doc.summary.search?.capacity;
      capacities.push(capacity);
      outcomes.push(`${capacity?.value} [${capacity?.lo}, ${capacity?.hi}] ${capacity?.status}`);
      expect(doc.summary.search?.requests).toBe(counts.received);
      // Or the failure rule stopped the sweep: an open loop's level decided at a look has requests in
      // flight past it, and two broken streams (one in 200) among a level's 37 make it invalid (seed 4,
      // at 4 req/s). The stop says so, and the capacity is not reached, never found.
      if (doc.summary.search?.stop.reason === "failures") {
        expect(capacity?.status).toBe("not_reached");
        continue;
      }
      expect(["found", "undecided"]).toContain(capacity?.status);
      // Found or undecided, every search's bracket holds the boundary, give or take the tolerance: its
      // bottom (the largest rate that met) is never above the band (a rate from one lucky window), its
      // top (the smallest that missed, or stayed undecided) never below it. A found capacity is its bottom.
      expect(capacity?.lo as number).toBeLessThanOrEqual(band.hi * tolerance);
      expect(capacity?.hi as number).toBeGreaterThanOrEqual(band.lo / tolerance);
      expect(capacity?.value).toBe(capacity?.lo);
      // The bracket as the levels show it: its bottom a level that met, its top one above that did not.
      const decisionAt = (rate: number | null | undefined) =>
        doc.levels.filter((l) => loadPosition(l.load) === rate).map((l) => l.probe?.decision);
      expect(capacity?.lo as number).toBeLessThan(capacity?.hi as number);
      expect(decisionAt(capacity?.lo)).toContain("meets");
      expect(decisionAt(capacity?.hi)).not.toContain("meets");
      expect(decisionAt(capacity?.hi).length).toBeGreaterThan(0);
    }
    console.log(`open loop: dense ladders put the boundary in [${band.lo}, ${band.hi}] req/s; searches:`, outcomes);
    // The methodology states these outcomes (docs/methodology.md#searched-levels): held to them here.
    const withStatus = (status: string) => capacities.filter((c) => c?.status === status);
    const undecided = withStatus("undecided");
    const found = withStatus("found").length;
    const lowest = Math.min(...undecided.map((c) => c?.lo as number)).toFixed(2);
    const highest = Math.max(...undecided.map((c) => c?.hi as number)).toFixed(2);
    const stated = methodology.match(/In \d+ seeded searches \(from 0\.5 to 16\).*?\(capacity `not_reached`\)/)?.[0];
    expect(stated).toBe(
      `In ${capacities.length} seeded searches (from 0.5 to 16), ${undecided.length} ended \`undecided\`, ` +
        `their brackets between ${lowest} and ${highest} req/s; ` +
        `${found === 0 ? "none" : found} found a rate, and ${withStatus("not_reached").length} stopped on the failure rule (capacity \`not_reached\`)`,
    );
  }, 180_000);
});
