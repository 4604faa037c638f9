/** @module A stateful tracker of requests in flight: the sweep records each start and end, and reads a level's achieved concurrency from it. */

/** Counts requests in flight over time; see `inFlightTracker`. */
export interface InFlightTracker {
  /** A request started at `tMs` (ms, any monotonic clock). */
  start(tMs: number): void;
  /** A request ended at `tMs` (ms, same clock). */
  end(tMs: number): void;
  /** Requests in flight now (starts minus ends so far). */
  readonly inFlight: number;
  /** The most requests in flight at once so far. */
  readonly maxInFlight: number;
  /**
   * Integral of requests in flight over [fromMs, toMs] divided by (toMs - fromMs): the achieved
   * concurrency over that window. 0 when the window is empty. Requests started before `fromMs` count.
   */
  timeWeightedMean(fromMs: number, toMs: number): number;
}

/**
 * A tracker of requests in flight, for a level's achieved concurrency. Each event is O(1) (it is only
 * recorded); `timeWeightedMean` integrates the step function over the recorded events, sorting them
 * first only if they were not recorded in time order. Fine for tens of thousands of events.
 */
export function inFlightTracker(): InFlightTracker {
  const times: number[] = [];
  const deltas: number[] = [];
  let sorted = true;
  let current = 0;
  let max = 0;
  const record = (tMs: number, delta: number) => {
    const prev = times[times.length - 1];
    if (prev !== undefined && tMs < prev) sorted = false;
    times.push(tMs);
    deltas.push(delta);
    current += delta;
    if (current > max) max = current;
  };
  return {
    start: (tMs) => record(tMs, 1),
    end: (tMs) => record(tMs, -1),
    get inFlight() {
      return current;
    },
    get maxInFlight() {
      return max;
    },
    timeWeightedMean(fromMs, toMs) {
      if (!(toMs > fromMs)) return 0;
      let order = times.map((_, i) => i);
      if (!sorted) order = order.sort((a, b) => (times[a] as number) - (times[b] as number));
      let level = 0;
      let prevT = fromMs;
      let area = 0;
      for (const i of order) {
        const t = times[i] as number;
        const d = deltas[i] as number;
        if (t <= fromMs) {
          level += d;
          continue;
        }
        if (t >= toMs) break;
        area += level * (t - prevT);
        prevT = t;
        level += d;
      }
      area += level * (toMs - prevT);
      return area / (toMs - fromMs);
    },
  };
}

/** Time-weighted requests in flight from [start, end] intervals, whatever order they came in. */
export function trackIntervals(intervals: [number, number][]): InFlightTracker {
  const tracker = inFlightTracker();
  const events = intervals.flatMap(([from, to]): [number, number][] => [
    [from, 1],
    [to, -1],
  ]);
  for (const [t, delta] of events.sort((a, b) => a[0] - b[0] || a[1] - b[1]))
    if (delta > 0) tracker.start(t);
    else tracker.end(t);
  return tracker;
}
