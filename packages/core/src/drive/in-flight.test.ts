/** @module Tests of the tracker of requests in flight on hand-made event sequences with exact expected means. */
import { describe, expect, it } from "vitest";
import { inFlightTracker } from "./in-flight.ts";

describe("inFlightTracker", () => {
  it("integrates requests in flight over the window", () => {
    // Prepare: 2 in flight over [0, 100), 1 over [100, 200), 0 after.
    const t = inFlightTracker();
    t.start(0);
    t.start(0);
    t.end(100);
    t.end(200);
    // Assess
    expect(t.timeWeightedMean(0, 200)).toBe(1.5);
    expect(t.timeWeightedMean(0, 400)).toBe(0.75);
    expect(t.timeWeightedMean(50, 150)).toBe(1.5);
    expect(t.timeWeightedMean(150, 150)).toBe(0);
    expect(t.inFlight).toBe(0);
    expect(t.maxInFlight).toBe(2);
  });

  it("counts requests started before the window and still running", () => {
    const t = inFlightTracker();
    t.start(-50);
    t.start(10);
    expect(t.inFlight).toBe(2);
    expect(t.timeWeightedMean(0, 20)).toBe(1.5);
  });

  it("gives N for a closed loop of N and tolerates events out of time order", () => {
    const t = inFlightTracker();
    for (let i = 0; i < 3; i++) t.start(0);
    for (let k = 1; k <= 10; k++) {
      t.end(k * 10);
      t.start(k * 10);
    }
    expect(t.timeWeightedMean(0, 100)).toBe(3);
    const u = inFlightTracker();
    u.end(30);
    u.start(10);
    expect(u.timeWeightedMean(0, 40)).toBe(0.5);
  });
});
