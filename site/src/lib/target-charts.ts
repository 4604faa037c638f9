/** @module The build-time SVG charts of a target page, rendered before Astro runs (vega stays out of the page bundle). */
import type { Estimate, Standing } from "@kneeboard/core/standing";
import {
  type BandPoint,
  type HistoryBands,
  historySpec,
  latencySpec,
  standingCurvesSpec,
  throughputCurvesSpec,
} from "./charts.ts";
import type { TargetView } from "./site-data.ts";
import { renderSvg } from "./svg.ts";

export interface TargetCharts {
  /** The standing's median curves with their interval bands; null when no valid run stands. */
  standing: string | null;
  curves: string;
  latency: string;
  /** Null with fewer than two runs. */
  history: string | null;
}

export async function targetCharts(target: TargetView): Promise<TargetCharts> {
  const { levels, summary } = target.latest;
  const { standing } = target;
  return {
    standing: standing.levels.some((l) => l.ranked)
      ? await renderSvg(
          standingCurvesSpec({
            title: "median over recent runs, with intervals",
            levels: standing.levels,
            knee: standing.kneeConcurrency,
          }),
        )
      : null,
    curves: await renderSvg(
      throughputCurvesSpec({ title: "per-stream and aggregate tok/s", levels, knee: summary.kneeConcurrency }),
    ),
    latency: await renderSvg(latencySpec({ title: "latency against concurrency", levels })),
    history:
      target.history.length > 1
        ? await renderSvg(historySpec({ title: "history", points: target.history, bands: standingBands(standing) }))
        : null,
  };
}

/** The standing's interval as a constant band over the runs it was taken over (their first to last start). */
function standingBands(standing: Standing): HistoryBands | undefined {
  const from = standing.oldestStartedAt;
  const to = standing.newestStartedAt;
  if (from === null || to === null) return undefined;
  const band = (e: Estimate | null | undefined): BandPoint[] | undefined =>
    e
      ? [
          { startedAt: from, low: e.low, high: e.high },
          { startedAt: to, low: e.low, high: e.high },
        ]
      : undefined;
  return {
    peakAggregate: band(standing.peak?.aggregateOutputTokensPerSecond),
    singleStream: band(standing.singleStream?.outputTokensPerSecond),
  };
}
