/** @module Each load kind's driver on its own: the warm-up it asks for, its spec, and how it splits across threads. */
import { describe, expect, it } from "vitest";
import { KINDS } from "./index.ts";

describe("the closed-loop driver", () => {
  const driver = KINDS.closed.driver;
  const load = { kind: "closed", concurrency: 5 } as const;

  it("warms up at up to N and spreads the first sends over one expected request", () => {
    expect(driver.warmupWorkers(load, 3)).toBe(3);
    expect(driver.warmupWorkers(load, 10)).toBe(5);
    expect(driver.prepare(load, { level: 5, expectedRequestMs: 200 })).toEqual({
      kind: "closed",
      concurrency: 5,
      startSpreadMs: 200,
      firstWorker: 0,
      workers: 5,
    });
    // One stream has nothing to spread.
    expect(driver.prepare({ kind: "closed", concurrency: 1 }, { level: 1, expectedRequestMs: 200 })).toMatchObject({
      startSpreadMs: 0,
    });
  });

  it("splits N into runs of consecutive workers, the first parts one more", () => {
    const spec = driver.prepare(load, { level: 5, expectedRequestMs: 200 });
    const parts = driver.split(spec, 2);
    expect(parts.map((p) => [p.firstWorker, p.workers])).toEqual([
      [0, 3],
      [3, 2],
    ]);
    // Every part keeps the level's N and spread: worker k's first send is at k x 200 / 5 ms, whichever thread runs it.
    expect(parts.every((p) => p.concurrency === 5 && p.startSpreadMs === 200)).toBe(true);
  });
});

describe("the open-loop driver", () => {
  const driver = KINDS.open.driver;
  const load = { kind: "open", arrival: "poisson", ratePerSecond: 30, seed: 7, maxInFlight: 64 } as const;

  it("warms up one request at a time, whatever the level number", () => {
    expect(driver.warmupWorkers(load, 3)).toBe(1);
    expect(driver.warmupWorkers(load, 0)).toBe(0);
    expect(driver.prepare(load, { level: 2, expectedRequestMs: 0 })).toEqual({
      kind: "open",
      spacing: { arrival: "poisson" },
      ratePerSecond: 30,
      seed: 7,
      level: 2,
      stream: 0,
      deal: null,
      maxInFlight: 64,
    });
  });

  it("splits into independent streams at rate / T, maxInFlight / T each", () => {
    const spec = driver.prepare(load, { level: 2, expectedRequestMs: 0 });
    expect(driver.split(spec, 3)).toEqual(
      [0, 1, 2].map((stream) => ({
        kind: "open",
        spacing: { arrival: "poisson" },
        ratePerSecond: 10,
        seed: 7,
        level: 2,
        stream,
        deal: null,
        maxInFlight: 21,
      })),
    );
  });

  it("deals one gamma schedule's arrivals round to T threads, each at the level's rate", () => {
    const gamma = {
      kind: "open",
      arrival: "gamma",
      burstiness: 0.25,
      ratePerSecond: 30,
      seed: 7,
      maxInFlight: 64,
    } as const;
    const spec = driver.prepare(gamma, { level: 2, expectedRequestMs: 0 });
    expect(driver.split(spec, 3).map((s) => [s.ratePerSecond, s.stream, s.deal])).toEqual([
      [30, 0, { every: 3, at: 0 }],
      [30, 0, { every: 3, at: 1 }],
      [30, 0, { every: 3, at: 2 }],
    ]);
  });
});
