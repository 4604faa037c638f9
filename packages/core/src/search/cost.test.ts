/**
 * @module What a search spends, without a server: the machine (machine.ts) and each probed level's
 * decision at its looks (decide.ts) on seeded per-request figures of the route in closed form
 * (16 sequences at once, a stream at 1000 / (20 + 4 x N) tok/s, 32 tokens, SLO 24 tok/s per stream),
 * counted as a closed loop spends them: the requests drawn to the deciding look, the N - 1 still in
 * flight when it decides (they end and are kept), and a warm-up. The aggregate is the closed form's:
 * this counts requests, it does not measure how a shorter level bends the knee (sweep/search.test.ts).
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../random/index.ts";
import { type DecisionSlo, decideLevel, looksOf, minimumRequests } from "./decide.ts";
import { LoadSearch } from "./machine.ts";

const BATCH = 64;
const CAP = 4 * BATCH;
const CONFIDENCE = 0.95;
const WARMUP = 1;
/** The ladder 1, 2, 4, ..., 64 at requestsPerLevel 64: 7 levels of 64 measured requests and a warm-up each. */
const LADDER_MEASURED = 7 * BATCH;
const LADDER_SENT = 7 * (BATCH + WARMUP);

/** One level's per-request figures: the closed form's, each request's step off by up to +-5 % (uniform), seeded. */
function requestsAt(n: number, random: () => number) {
  const active = Math.min(n, 16);
  const stepMs = 20 + 4 * active;
  const queueMs = n > 16 ? ((n - 16) / 16) * stepMs * 32 : 0;
  return Array.from({ length: CAP }, () => {
    const step = stepMs * (0.95 + 0.1 * random());
    return { ttftMs: queueMs + step, perStream: 1000 / step };
  });
}

/** One seeded search from 1 to 64 at resolution 0.1: its capacity, knee and requests. */
function search(seed: number, slo: DecisionSlo) {
  const random = seededRandom(seed);
  const machine = new LoadSearch({ from: 1, to: 64, resolution: 0.1, whole: true });
  let measured = 0;
  let sent = 0;
  const loads: number[] = [];
  for (let n = machine.next(); n !== null; n = machine.next()) {
    loads.push(n);
    const all = requestsAt(n, random);
    const plan = { batch: BATCH, cap: CAP, minimum: minimumRequests(CONFIDENCE, n) };
    let decision: "meets" | "misses" | "undecided" = "undecided";
    let drawn = CAP;
    for (const look of looksOf(plan)) {
      const taken = all.slice(0, look);
      const d = decideLevel(
        taken.map((r) => r.ttftMs),
        taken.map((r) => r.perStream),
        slo,
        CONFIDENCE,
        look,
        plan,
      );
      if (d.decision === "pending") continue;
      decision = d.decision;
      drawn = look;
      break;
    }
    // The N - 1 requests in flight at the deciding look end and are kept (a closed loop's).
    const kept = drawn + Math.min(n - 1, CAP - drawn);
    measured += kept;
    sent += kept + WARMUP;
    const active = Math.min(n, 16);
    machine.record({
      load: n,
      decision,
      valid: true,
      aggregate: (active * 1000) / (20 + 4 * active),
      ttftP50Ms: 20 + 4 * active,
    });
  }
  return { ...machine.outcome(), measured, sent, loads };
}

const SEEDS = Array.from({ length: 10 }, (_, i) => 100 + i);

describe("what a search spends on the route of known capacity (10 seeded runs)", () => {
  it("with a per-stream SLO only: capacity 5 in at least 9 of 10, capacity and knee together under the ladder's 448", () => {
    const runs = SEEDS.map((seed) => search(seed, { minOutputTokensPerSecond: 24, maxTtftMs: null }));
    console.log(
      "per-stream SLO only:",
      runs.map((r) => `capacity ${r.capacity.value}, knee ${r.knee.value}, ${r.measured} measured, ${r.sent} sent`),
    );
    expect(runs.filter((r) => r.capacity.value === 5 && r.capacity.status === "found").length).toBeGreaterThanOrEqual(
      9,
    );
    for (const r of runs) {
      expect(new Set(r.loads).size).toBe(r.loads.length);
      expect(r.knee).toEqual({ value: 10, lo: 9, hi: 10, status: "found" });
      expect(r.measured).toBeLessThan(LADDER_MEASURED);
      expect(r.sent).toBeLessThan(LADDER_SENT);
    }
  });

  it("with the default TTFT SLO (2000 ms) as well: capacity 5, but a level that meets waits for the 63 requests that bound TTFT p95", () => {
    const runs = SEEDS.map((seed) => search(seed, { minOutputTokensPerSecond: 24, maxTtftMs: 2000 }));
    console.log(
      "with a TTFT SLO:",
      runs.map((r) => `capacity ${r.capacity.value}, ${r.measured} measured, ${r.sent} sent`),
    );
    expect(runs.filter((r) => r.capacity.value === 5).length).toBeGreaterThanOrEqual(9);
    // Four levels meet (1, 2, 4, 5), each at the look of 64 at the earliest.
    for (const r of runs) expect(r.measured).toBeGreaterThanOrEqual(4 * BATCH);
  });
});
