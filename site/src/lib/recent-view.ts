/**
 * @module A series' view as every page but its own needs it: its history from the oldest run in its
 * standing, and at least the last `TREND_RUNS` runs (the trend). The site index lists these, so its
 * size grows with routes, not with routes x runs; the target page reads its series' whole history.
 */
import { type TargetView, TREND_RUNS } from "./site-data.ts";

export function recentView(view: TargetView): TargetView {
  const inStanding = new Set(view.standing.runIds);
  const oldest = view.history.findIndex((h) => inStanding.has(h.runId));
  const tail = Math.max(0, view.history.length - TREND_RUNS);
  const from = oldest >= 0 ? Math.min(oldest, tail) : tail;
  return from === 0 ? view : { ...view, history: view.history.slice(from) };
}
