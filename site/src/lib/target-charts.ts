/** @module The build-time SVG charts of a target page, rendered before Astro runs (vega stays out of the page bundle). */
import type { Estimate, Standing } from "@kneeboard/core/standing";
import {
  type BandPoint,
  type CompareMeasure,
  compareSpec,
  type HistoryBands,
  historySpec,
  latencySpec,
  levelPoints,
  prefillSpec,
  type RateSeries,
  rateLatencySpec,
  rateRoutesSpec,
  rateThroughputSpec,
  standingCurvesSpec,
  throughputCurvesSpec,
  tradeoffSpec,
} from "./charts/index.ts";
import { tradeoffTargets } from "./compare.ts";
import { modelGroups } from "./models.ts";
import { prefillPoints, ratePoints } from "./open-loop.ts";
import type { ModelCharts, TargetCharts, TargetView } from "./site-index.ts";
import { renderSvg } from "./svg.ts";

type Level = TargetView["latest"]["levels"][number];
const finite = (v: number | null | undefined) => v !== null && v !== undefined && Number.isFinite(v);
/** A valid level some figure of which `pick` finds: what a chart of the latest run needs to be worth drawing. */
const drawable = (levels: Level[], pick: (l: Level) => (number | null)[]) =>
  levels.some((l) => l.valid && pick(l).some(finite));
const throughput = (l: Level) => [l.aggregateOutputTokensPerSecond, l.perStreamOutputTokensPerSecondP50];
const latencies = (l: Level) => [l.ttftP50Ms, l.ttftP95Ms, l.ttftP99Ms, l.e2eP50Ms, l.e2eP95Ms, l.e2eP99Ms];
/** The trade-off draws a valid level only when it has both figures. */
const bothThroughputs = (l: Level) =>
  finite(l.aggregateOutputTokensPerSecond) && finite(l.perStreamOutputTokensPerSecondP50) ? [1] : [];

const seriesOf = (targets: TargetView[]) =>
  targets.map((t) => ({ targetId: t.id, label: t.label, levels: levelPoints(t.latest.levels) }));

/**
 * What a model page's curves draw of its routes: each latest run's valid levels (as a target page draws
 * only valid levels' charts), and no route whose latest run has none; `curvesLeftOut` (models.ts) says what is left out.
 */
const validSeries = (targets: TargetView[]) =>
  seriesOf(targets)
    .map((s) => ({ ...s, levels: s.levels.filter((l) => l.valid) }))
    .filter((s) => s.levels.length > 0);

/** Charts per model key, for every model (one route or several). */
export async function modelCharts(targets: TargetView[]): Promise<Record<string, ModelCharts>> {
  const byId = new Map(targets.map((t) => [t.id, t]));
  const out: Record<string, ModelCharts> = {};
  for (const g of modelGroups(
    targets,
    targets.map((t) => t.id),
  )) {
    const routes = g.targetIds.map((id) => byId.get(id) as TargetView);
    // Each loop's routes drawn on their own axis: concurrency for closed loops, the offered rate for open ones.
    const series = validSeries(routes.filter((t) => !t.openLoop));
    const any = (pick: (l: Level) => (number | null)[]) => series.some((s) => drawable(s.levels, pick));
    const curve = async (measure: CompareMeasure) =>
      any((l) => [measure === "aggregate" ? l.aggregateOutputTokensPerSecond : l.perStreamOutputTokensPerSecondP50])
        ? await renderSvg(compareSpec({ series, measure }))
        : null;
    out[g.modelKey] = {
      aggregate: await curve("aggregate"),
      perStream: await curve("perStream"),
      tradeoff: any(bothThroughputs)
        ? await renderSvg(tradeoffSpec({ title: "what each user gets against what all get", series }))
        : null,
      ...(await openLoopModelCharts(routes.filter((t) => t.openLoop))),
    };
  }
  return out;
}

/** A model's open-loop routes against the offered rate: each latest run's valid rates, overlaid per route. */
async function openLoopModelCharts(routes: TargetView[]): Promise<Pick<ModelCharts, "rateLatency" | "rateThroughput">> {
  const series: RateSeries[] = routes
    .map((t) => ({
      targetId: t.id,
      label: t.label,
      points: ratePoints(t.details?.levels ?? []).filter((p) => p.valid),
    }))
    .filter((s) => s.points.length > 0);
  const has = (pick: (p: RateSeries["points"][number]) => number | null) =>
    series.some((s) => s.points.some((p) => finite(pick(p))));
  const routesSaid = "one line per route (colour and marker shape per route), invalid rates left out";
  return {
    rateLatency:
      has((p) => p.ttftP50Ms) || has((p) => p.e2eP50Ms)
        ? await renderSvg(
            rateRoutesSpec({
              title: "latency against offered rate",
              description: `Time to first token p50 (top) and end-to-end latency p50 (bottom) in milliseconds, each y axis linear from zero, against the offered request rate in requests per second; ${routesSaid}.`,
              series,
              panels: [
                { title: "time to first token, p50", axisTitle: "TTFT p50 ms", pick: (p) => p.ttftP50Ms },
                { title: "end-to-end, p50", axisTitle: "e2e p50 ms", pick: (p) => p.e2eP50Ms },
              ],
            }),
          )
        : null,
    rateThroughput:
      has((p) => p.goodputOutputTokensPerSecond) || has((p) => p.aggregateOutputTokensPerSecond)
        ? await renderSvg(
            rateRoutesSpec({
              title: "goodput and aggregate tok/s against offered rate",
              description: `Goodput, the output tokens per second of requests that each met the SLO (top), and aggregate output tokens per second (bottom), each y axis from zero, against the offered request rate in requests per second; ${routesSaid}.`,
              series,
              panels: [
                {
                  title: "goodput (requests meeting the SLO)",
                  axisTitle: "goodput tok/s",
                  pick: (p) => p.goodputOutputTokensPerSecond,
                },
                {
                  title: "aggregate (all requests)",
                  axisTitle: "aggregate tok/s",
                  pick: (p) => p.aggregateOutputTokensPerSecond,
                },
              ],
            }),
          )
        : null,
  };
}

/** The compare page's build-time trade-off chart of the best-ranked targets (the page's other charts draw in the browser). */
export async function compareTradeoff(targets: TargetView[]): Promise<string> {
  return renderSvg(
    tradeoffSpec({ title: "what each user gets against what all get", series: seriesOf(tradeoffTargets(targets)) }),
  );
}

/** The prefill curve of one target's views (its scenarios): null unless 2 or more closed-loop scenarios have a valid level 1. */
export async function prefillChart(views: TargetView[]): Promise<string | null> {
  const points = prefillPoints(views);
  return points.length >= 2
    ? await renderSvg(prefillSpec({ title: "time to first token against prompt length", points }))
    : null;
}

/** An open-loop view's charts: against the offered rate, none against concurrency. */
async function openLoopCharts(target: TargetView): Promise<TargetCharts> {
  const points = ratePoints(target.details?.levels ?? []).filter((p) => p.valid);
  const has = (pick: (p: (typeof points)[number]) => (number | null)[]) => points.some((p) => pick(p).some(finite));
  return {
    standing: null,
    curves: null,
    latency: null,
    tradeoff: null,
    history:
      target.history.some((h) => finite(h.peakAggregateOutputTokensPerSecond)) && target.history.length > 1
        ? await renderSvg(
            historySpec({ title: "history", points: target.history, bands: standingBands(target.standing) }),
          )
        : null,
    rateLatency: has((p) => [p.ttftP50Ms, p.ttftP95Ms, p.e2eP50Ms, p.e2eP95Ms])
      ? await renderSvg(rateLatencySpec({ title: "latency against offered rate", points }))
      : null,
    rateThroughput: has((p) => [p.aggregateOutputTokensPerSecond, p.goodputOutputTokensPerSecond])
      ? await renderSvg(rateThroughputSpec({ title: "aggregate and goodput tok/s against offered rate", points }))
      : null,
  };
}

export async function targetCharts(target: TargetView): Promise<TargetCharts> {
  if (target.openLoop) return openLoopCharts(target);
  const { summary } = target.latest;
  const levels = levelPoints(target.latest.levels);
  const { standing } = target;
  return {
    rateLatency: null,
    rateThroughput: null,
    standing: standing.levels.some((l) => l.ranked)
      ? await renderSvg(
          standingCurvesSpec({
            title: "median over recent runs, with intervals",
            levels: standing.levels,
            knee: standing.kneeConcurrency,
          }),
        )
      : null,
    curves: drawable(levels, throughput)
      ? await renderSvg(
          throughputCurvesSpec({ title: "per-stream and aggregate tok/s", levels, knee: summary.kneeConcurrency }),
        )
      : null,
    latency: drawable(levels, latencies)
      ? await renderSvg(latencySpec({ title: "latency against concurrency", levels }))
      : null,
    history:
      target.history.length > 1 &&
      target.history.some(
        (h) => finite(h.peakAggregateOutputTokensPerSecond) || finite(h.singleStreamOutputTokensPerSecond),
      )
        ? await renderSvg(historySpec({ title: "history", points: target.history, bands: standingBands(standing) }))
        : null,
    tradeoff: drawable(levels, bothThroughputs)
      ? await renderSvg(
          tradeoffSpec({
            title: "what each user gets against what all get",
            series: [{ targetId: target.id, label: target.label, levels }],
          }),
        )
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
