/**
 * @module The open loop on a manual scheduler with a scripted endpoint: sends on the seeded Poisson
 * schedule whatever is in flight, the same seed the same schedule, maxInFlight, in exact numbers.
 */

import { describe, expect, it } from "vitest";
import { arrivalGapsMs, dealtGapsMs, poissonGapsMs } from "../kinds/open/index.ts";
import { loadPosition } from "../run/index.ts";
import { runSweep } from "./index.ts";
import { setup } from "./scripted.fixture.ts";

/** The first `count` send offsets of a schedule, ms. */
function schedule(ratePerSecond: number, seed: number, level: number, count: number): number[] {
  const gaps = poissonGapsMs(ratePerSecond, seed, level);
  const offsets = [0];
  while (offsets.length < count) offsets.push((offsets.at(-1) as number) + gaps());
  return offsets;
}

const open = (ratesPerSecond: number[], extra: Record<string, unknown> = {}) => ({
  arrival: { mode: "poisson", ratesPerSecond, seed: 7, ...extra },
  warmupRequests: 0,
});

describe("poissonGapsMs", () => {
  it("gives the same schedule for the same seed and level, another for another seed or level", () => {
    expect(schedule(5, 7, 1, 50)).toEqual(schedule(5, 7, 1, 50));
    expect(schedule(5, 8, 1, 50)).not.toEqual(schedule(5, 7, 1, 50));
    expect(schedule(5, 7, 2, 50)).not.toEqual(schedule(5, 7, 1, 50));
  });

  it("has exponential gaps: mean 1 / rate, coefficient of variation near 1", () => {
    const gaps = poissonGapsMs(20, 3, 1);
    const drawn = Array.from({ length: 20_000 }, gaps);
    const mean = drawn.reduce((a, b) => a + b, 0) / drawn.length;
    const sd = Math.sqrt(drawn.reduce((a, b) => a + (b - mean) ** 2, 0) / drawn.length);
    expect(Math.abs(mean / 50 - 1)).toBeLessThan(0.03);
    expect(Math.abs(sd / mean - 1)).toBeLessThan(0.03);
  });
});

describe("an open-loop level", () => {
  it("sends at the schedule's times while earlier requests are still in flight, and records them", async () => {
    // Requests last 2 s; at 10 requests/s about 20 are in flight at once.
    const { scheduler, endpoint, options } = setup({ ...open([10]), requestsPerLevel: 60 }, () => ({
      outcome: "ok",
      durationMs: 2000,
    }));
    const doc = await scheduler.run(runSweep(options));
    const sends = endpoint.arrivals.map((a) => a.atMs);
    // Exactly on schedule: the manual scheduler never wakes late.
    expect(sends).toEqual(schedule(10, 7, 1, 60));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.load).toEqual({ kind: "open", arrival: "poisson", ratePerSecond: 10 });
    expect(level.open?.scheduleLagMs).toEqual({ p50: 0, p99: 0 });
    expect(level.open?.inFlightMax).toBe(Math.max(...endpoint.inFlightLog.map(([, n]) => n)));
    expect(level.open?.inFlightMax).toBeGreaterThan(10);
    expect(level.open?.achievedRatePerSecond).toBeCloseTo(59 / (((sends.at(-1) as number) - 0) / 1000), 9);
    expect(level.invalid.map((r) => r.code)).not.toContain("max_in_flight");
    expect(doc.summary.singleStream).toBeNull();
  });

  it("sweeps its rates in order, each level's number in place of N, and names capacity as a rate", async () => {
    const { scheduler, options } = setup({ ...open([2, 4, 8]), requestsPerLevel: 20 }, () => ({
      outcome: "ok",
      durationMs: 100,
    }));
    const doc = await scheduler.run(runSweep(options));
    expect(doc.levels.map((l) => [l.level, loadPosition(l.load), l.load.kind])).toEqual([
      [1, 2, "open"],
      [2, 4, "open"],
      [3, 8, "open"],
    ]);
    // 8 tokens in 100 ms: 80 tok/s per stream and TTFT 12.5 ms meet the default SLO at every rate.
    expect(doc.summary.capacityRequestsPerSecond).toBe(8);
    expect(doc.summary.capacity).toBeNull();
  });

  it("waits for a slot when maxInFlight requests are in flight, and the level is invalid for it", async () => {
    const { scheduler, endpoint, options } = setup({ ...open([50], { maxInFlight: 4 }), requestsPerLevel: 20 }, () => ({
      outcome: "ok",
      durationMs: 1000,
    }));
    const doc = await scheduler.run(runSweep(options));
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(Math.max(...endpoint.inFlightLog.map(([, n]) => n))).toBe(4);
    expect(level.open?.inFlightMax).toBe(4);
    expect(level.invalid).toContainEqual({ code: "max_in_flight", detail: { maxInFlight: 4 } });
    // The sends that waited left late against their schedule.
    expect(level.open?.scheduleLagMs?.p99).toBeGreaterThan(0);
  });

  it("runs for levelDurationSeconds when timed: no send due after the end", async () => {
    const { scheduler, endpoint, options } = setup({ ...open([20]), levelDurationSeconds: 3 }, () => ({
      outcome: "ok",
      durationMs: 100,
    }));
    await scheduler.run(runSweep(options));
    const due = schedule(20, 7, 1, 200).filter((t) => t < 3000);
    expect(endpoint.arrivals.map((a) => a.atMs)).toEqual(due);
  });
});

describe("arrivalGapsMs, gamma", () => {
  // 100,000 seeded draws at 20 requests/s (mean gap 50 ms). A gap's CV is c = 1 / sqrt(burstiness),
  // so the mean's standard error is c / sqrt(1e5): 0.63 % of the mean at c = 2, and 2 % is over 3
  // standard errors. The CV's standard error is about c * sqrt((2 + 6 / burstiness) / 4e5): 0.8 % of
  // it at burstiness 0.25 and 0.3 % at 4, so 5 % is over 6 standard errors. Seeded: the same numbers every run.
  const DRAWS = 100_000;
  for (const burstiness of [0.25, 1, 4]) {
    it(`has gaps of mean 1 / rate and CV 1 / sqrt(burstiness) at burstiness ${burstiness}`, () => {
      const gaps = arrivalGapsMs({ arrival: "gamma", burstiness }, 20, 11, 1);
      const drawn = Array.from({ length: DRAWS }, gaps);
      const mean = drawn.reduce((a, b) => a + b, 0) / DRAWS;
      const sd = Math.sqrt(drawn.reduce((a, b) => a + (b - mean) ** 2, 0) / (DRAWS - 1));
      const cv = 1 / Math.sqrt(burstiness);
      const meanStandardError = (50 * cv) / Math.sqrt(DRAWS);
      expect(Math.abs(mean - 50)).toBeLessThan(0.02 * 50);
      expect(Math.abs(mean - 50)).toBeLessThan(4 * meanStandardError);
      expect(Math.abs(sd / mean / cv - 1)).toBeLessThan(0.05);
      expect(drawn.every((g) => g >= 0)).toBe(true);
    });
  }

  it("gives the same schedule for the same seed and level, another for another level", () => {
    const draw = (level: number) =>
      Array.from({ length: 50 }, arrivalGapsMs({ arrival: "gamma", burstiness: 0.5 }, 5, 7, level));
    expect(draw(1)).toEqual(draw(1));
    expect(draw(2)).not.toEqual(draw(1));
  });

  it("dealt to 3 threads, sends each arrival of the one schedule once", () => {
    const one = arrivalGapsMs({ arrival: "gamma", burstiness: 0.25 }, 20, 3, 1);
    const offsets = [0];
    for (let i = 1; i < 30; i++) offsets.push((offsets.at(-1) as number) + one());
    const dealt = [0, 1, 2].flatMap((at) => {
      const gaps = dealtGapsMs(arrivalGapsMs({ arrival: "gamma", burstiness: 0.25 }, 20, 3, 1), 3, at);
      const own = [gaps()];
      for (let i = 1; i < 10; i++) own.push((own.at(-1) as number) + gaps());
      return own;
    });
    const sorted = [...dealt].sort((a, b) => a - b);
    expect(sorted).toEqual(offsets.map((ms) => expect.closeTo(ms, 6)));
  });
});

describe("a gamma open-loop level", () => {
  it("sends on the gamma schedule, records its load with the burstiness, and every sample's scheduledMs", async () => {
    const { scheduler, endpoint, options } = setup(
      {
        arrival: { mode: "gamma", ratesPerSecond: [10], burstiness: 0.25, seed: 7 },
        warmupRequests: 0,
        requestsPerLevel: 60,
      },
      () => ({ outcome: "ok", durationMs: 500 }),
    );
    const doc = await scheduler.run(runSweep(options));
    const gaps = arrivalGapsMs({ arrival: "gamma", burstiness: 0.25 }, 10, 7, 1);
    const expected = [0];
    while (expected.length < 60) expected.push((expected.at(-1) as number) + gaps());
    expect(endpoint.arrivals.map((a) => a.atMs)).toEqual(expected);
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.load).toEqual({ kind: "open", arrival: "gamma", ratePerSecond: 10, burstiness: 0.25 });
    expect(level.open?.scheduleLagMs).toEqual({ p50: 0, p99: 0 });
    // On the manual scheduler every send leaves on time: its start is its due time.
    const first = Math.min(...doc.samples.map((s) => s.startMs));
    for (const s of doc.samples) expect(s.scheduledMs).toBeCloseTo(s.startMs - first, 9);
    expect(doc.samples.map((s) => s.scheduledMs)).toEqual(expected.map((ms) => expect.closeTo(ms, 9)));
  });
});
