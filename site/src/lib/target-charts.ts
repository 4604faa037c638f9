/** @module The build-time SVG charts of a target page, rendered before Astro runs (vega stays out of the page bundle). */
import type { Estimate, Standing } from "@kneeboard/core/standing";
import {
  type BandPoint,
  type CompareMeasure,
  compareSpec,
  type HistoryBands,
  historySpec,
  latencySpec,
  standingCurvesSpec,
  throughputCurvesSpec,
  tradeoffSpec,
} from "./charts.ts";
import { tradeoffTargets } from "./compare.ts";
import { modelGroups } from "./models.ts";
import type { TargetView } from "./site-data.ts";
import { renderSvg } from "./svg.ts";

export interface TargetCharts {
  /** The standing's median curves with their interval bands; null when no valid run stands. */
  standing: string | null;
  curves: string;
  latency: string;
  /** Null with fewer than two runs. */
  history: string | null;
  /** Per-stream against aggregate tok/s, each point labelled with its concurrency. */
  tradeoff: string;
}

/** The build-time SVG charts of a model page: its routes' curves overlaid, and their trade-offs. */
export interface ModelCharts {
  aggregate: string;
  perStream: string;
  tradeoff: string;
}

const seriesOf = (targets: TargetView[]) =>
  targets.map((t) => ({ targetId: t.id, label: t.label, levels: t.latest.levels }));

/** Charts per model key, for every model (one route or several). */
export async function modelCharts(targets: TargetView[]): Promise<Record<string, ModelCharts>> {
  const byId = new Map(targets.map((t) => [t.id, t]));
  const out: Record<string, ModelCharts> = {};
  for (const g of modelGroups(
    targets,
    targets.map((t) => t.id),
  )) {
    const series = seriesOf(g.targetIds.map((id) => byId.get(id) as TargetView));
    const curve = (measure: CompareMeasure) => renderSvg(compareSpec({ series, measure }));
    out[g.modelKey] = {
      aggregate: await curve("aggregate"),
      perStream: await curve("perStream"),
      tradeoff: await renderSvg(tradeoffSpec({ title: "what each user gets against what all get", series })),
    };
  }
  return out;
}

/** The compare page's build-time trade-off chart of the best-ranked targets (the page's other charts draw in the browser). */
export async function compareTradeoff(targets: TargetView[]): Promise<string> {
  return renderSvg(
    tradeoffSpec({ title: "what each user gets against what all get", series: seriesOf(tradeoffTargets(targets)) }),
  );
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
    tradeoff: await renderSvg(
      tradeoffSpec({
        title: "what each user gets against what all get",
        series: [{ targetId: target.id, label: target.label, levels }],
      }),
    ),
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
