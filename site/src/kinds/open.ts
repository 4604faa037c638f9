/**
 * @module The open loop: requests sent on a schedule of arrivals (Poisson, or gamma bursts) at set
 * rates, whatever is in flight. Its levels are offered rates (linear axis from zero); it is ranked by
 * capacity in requests/s (the highest offered rate whose level meets the SLO), and its pages draw and
 * table each rate with the rate achieved, requests in flight and how late sends left.
 */
import type { Load } from "@kneeboard/core/run";
import { type Estimate, estimate, rankLabel, ranksBy } from "@kneeboard/core/standing";
import { levelPoints } from "../lib/charts/index.ts";
import type { TargetTable } from "../lib/compare.ts";
import { estimateTitle, fmt, fmtEstimate, pct } from "../lib/format.ts";
import type { CapacityBracket } from "../lib/leaderboard.ts";
import { sloWords, targetModelKey } from "../lib/models.ts";
import {
  type FigureColumn,
  type RankedRow,
  type RankingColumns,
  type RankingWords,
  rankingTable,
  routesTable,
} from "../lib/ranking-table.ts";
import {
  type Cell,
  lastRunNote,
  problemOf,
  type RankingContext,
  type RankingTable,
  type RoutesTable,
  sameModelById,
  slo,
} from "../lib/rankings.ts";
import { searchedCapacity } from "../lib/search.ts";
import { simulatedLabel } from "../lib/share.ts";
import type { TargetView } from "../lib/site-data.ts";
import { sparkline } from "../lib/sparkline.ts";
import { num, text } from "../lib/table.ts";
import {
  curvesFigure,
  latencyFigure,
  type ModelContext,
  overlayFigure,
  type SectionDef,
  type TargetContext,
  withLeftOut,
} from "../lib/target-charts.ts";
import { viewPoints } from "../lib/view-points.ts";
import { ladderBracketText, searchedBracketText } from "./cells.ts";
import type { KindView, RoutesContext } from "./view.ts";

/** The offered rate of a figure's level (a peak, of a run or a standing); null without a figure or an open load. */
export function rateOf(figure: { load: Load } | null | undefined): number | null {
  return figure?.load.kind === "open" ? figure.load.ratePerSecond : null;
}

/** True when a load is an open loop's at `rate` requests/s. */
const atRate = (load: Load, rate: number) => load.kind === "open" && load.ratePerSecond === rate;

/**
 * Capacity in requests/s over the standing's runs: the median (and interval) of each run's
 * `capacityRequestsPerSecond`, a run in which no rate met the SLO counting as 0; null when none met it.
 * Where the standing's runs searched their rates, the standing's searched capacity (`standing.search`:
 * the median over the searched runs' answers, a run that missed at `from` counting as 0).
 */
export function capacityEstimate(view: Pick<TargetView, "history" | "standing">): Estimate | null {
  if (view.standing.search) return view.standing.search.capacity.estimate;
  const inStanding = new Set(view.standing.runIds);
  const values = view.history.filter((h) => inStanding.has(h.runId)).map((h) => h.capacityRequestsPerSecond);
  if (values.every((v) => v === null)) return null;
  return estimate(values.map((v) => v ?? 0));
}

/** One row of an open-loop ranking. */
export interface RateRow extends RankedRow {
  /** The highest offered rate meeting the SLO, requests/s, over the standing's runs. */
  capacity: Estimate | null;
  /** Where the rates were searched: the capacity cell's tooltip (the latest run's bracket, confidence and spend); null for a ladder's. */
  capacityTitle: string | null;
  /**
   * The latest run's capacity bracket in requests/s (`summary.capacityBracket`): a ladder's `[highest
   * rate that met, next rate)`, or a search's `[lo, hi]` at its confidence; null in runs recorded before brackets.
   */
  capacityBracket: CapacityBracket | null;
  /** The latest run's achieved rate at its capacity level, requests/s. */
  achievedAtCapacity: number | null;
  /** The standing's TTFT p95 and per-stream tok/s at the latest run's capacity level. */
  ttftP95AtCapacity: Estimate | null;
  perStreamAtCapacity: Estimate | null;
  peakAggregate: Estimate | null;
  /** The offered rate of the peak's level, requests/s. */
  peakRatePerSecond: number | null;
  errorRate: number;
  rateLimitRate: number;
  problem: string | null;
  /** Capacity in requests/s of the last runs, oldest first. */
  trend: (number | null)[];
}

/** Open-loop views ranked by capacity in requests/s (shared ranks where the intervals overlap). */
export function rateRows(views: readonly TargetView[], trendRuns = 20): RateRow[] {
  const caps = new Map(views.map((v) => [v.id, capacityEstimate(v)]));
  const ranks = ranksBy(views.map((v) => ({ id: v.id, estimate: caps.get(v.id) ?? null })));
  const all = [...ranks.values()];
  return views
    .map((v): RateRow => {
      const s = v.latest.summary;
      const capRate = s.capacityRequestsPerSecond ?? null;
      const capLevel = capRate === null ? undefined : v.details?.levels.find((l) => atRate(l.load, capRate));
      const standingAt = capRate === null ? undefined : v.standing.levels.find((l) => atRate(l.load, capRate));
      const peak = v.standing.peak;
      const rank = ranks.get(v.id) ?? null;
      return {
        id: v.id,
        label: v.label,
        modelKey: targetModelKey(v),
        simulated: v.simulated,
        rank,
        rankLabel: rankLabel(rank, all),
        capacity: caps.get(v.id) ?? null,
        capacityTitle: searchedCapacity(v)?.title ?? null,
        capacityBracket: s.capacityBracket,
        achievedAtCapacity: capLevel?.open?.achievedRatePerSecond ?? null,
        ttftP95AtCapacity: standingAt?.ttftP95Ms ?? null,
        perStreamAtCapacity: standingAt?.perStreamOutputTokensPerSecondP50 ?? null,
        peakAggregate: peak?.aggregateOutputTokensPerSecond ?? null,
        peakRatePerSecond: rateOf(peak),
        errorRate: s.errorRate,
        rateLimitRate: s.rateLimitRate,
        problem:
          v.latest.status === "partial"
            ? `partial${v.latest.partialReason ? ` (${v.latest.partialReason})` : ""}`
            : !s.valid
              ? "some rates invalid"
              : null,
        trend: v.history.slice(-trendRuns).map((h) => h.capacityRequestsPerSecond ?? 0),
      };
    })
    .sort(
      (a, b) =>
        (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
        (b.capacity?.median ?? -1) - (a.capacity?.median ?? -1) ||
        a.id.localeCompare(b.id),
    );
}

/** A rate as a bracket's end, without its unit: `0.5`, `12`. */
const rateEnd = (rate: number) => rate.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** A run's capacity bracket in requests/s, marked ladder or searched; empty for a run recorded before brackets. */
function rateBracketText(b: CapacityBracket | null): string {
  if (b === null) return "";
  return b.kind === "searched" ? `${searchedBracketText(b, rateEnd)}, searched` : ladderBracketText(b, rateEnd);
}

/**
 * A row's capacity cell: the median over the standing's runs with its interval, and under it the
 * latest run's bracket, marked ladder or searched: `[1, 2), ladder`, `not measured above 4, ladder`,
 * `[1.5, 1.75] at 95 %, searched`. Sorted on the median, which for a ladder is the median of the runs'
 * lower ends (a run's capacity is its bracket's lo); a row where no run met sorts as 0 and reads
 * `below R`, R the latest run's lowest valid rate.
 */
function rateCapacityCell(r: Pick<RateRow, "capacity" | "capacityBracket" | "capacityTitle">): Cell {
  const e = r.capacity;
  const b = r.capacityBracket;
  const below = e === null && b !== null && b.lo === null && b.hi !== null;
  return {
    kind: "capacity",
    value: e?.median ?? (below ? 0 : null),
    text: e ? fmt(e.median, 2) : below ? `below ${rateEnd(b.hi as number)}` : "—",
    interval: e && e.low !== e.high ? `${fmt(e.low, 2)}-${fmt(e.high, 2)}` : null,
    bracket: rateBracketText(b),
    title: [
      estimateTitle(e),
      r.capacityTitle ?? "the latest run's bracket: the highest offered rate that met the SLO and the next rate run",
    ].join("; "),
  };
}

/** "0.5 req/s", "12 req/s": a rate with the precision it needs. */
export function fmtRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return "—";
  return `${rate.toLocaleString("en-US", { maximumFractionDigits: rate < 10 ? 2 : 1 })} req/s`;
}

/**
 * Under a model's open-loop charts: the routes and offered rates they leave out as invalid (the client
 * could not keep the schedule, or hit `maxInFlight`); null when every rate of every route is drawn.
 */
export function ratesLeftOut(routes: readonly TargetView[]): string | null {
  const parts = routes.flatMap((t) => {
    const points = levelPoints(t.details?.levels ?? []);
    const invalid = points.filter((p) => !p.valid).map((p) => p.position);
    if (invalid.length === 0 && points.length > 0) return [];
    if (invalid.length === points.length) return [`“${t.label}”, whose latest run has no valid rate`];
    return [
      `the invalid ${invalid.length === 1 ? "rate" : "rates"} of “${t.label}” (${invalid.map((r) => fmtRate(r)).join(", ")})`,
    ];
  });
  return parts.length
    ? `Left out, as invalid levels are never drawn: ${parts.join("; ")}. The table below has their figures, marked valid or not.`
    : null;
}

/** An open loop's leaderboard figures after rank and name: capacity, what was achieved there, the peak, the trend. */
function boardFigures(sloText: string): FigureColumn<RateRow>[] {
  return [
    {
      heading: "capacity req/s",
      sub: `at ${sloText}`,
      type: "num",
      sorted: true,
      title: `highest offered rate whose level meets the SLO (${sloText}, a failed request counted as a miss), with the latest run's bracket, marked ladder or searched; sorted on the lower end`,
      cell: rateCapacityCell,
    },
    ACHIEVED,
    {
      heading: "TTFT p95 ms",
      type: "num",
      title: "time to first token p95 at the capacity rate",
      cell: (r) => ({ kind: "estimate", estimate: r.ttftP95AtCapacity, digits: 0, tooltip: false }),
    },
    {
      heading: "per-stream tok/s",
      type: "num",
      title: "per-stream output tok/s (p50) at the capacity rate",
      cell: (r) => ({ kind: "estimate", estimate: r.perStreamAtCapacity, digits: 1, tooltip: false }),
    },
    {
      heading: "peak aggregate tok/s",
      type: "num",
      title: "highest aggregate output tok/s over the valid rates",
      cell: (r) => ({ kind: "estimate", estimate: r.peakAggregate, digits: 0, tooltip: false }),
    },
    PEAK_RATE,
    {
      heading: "trend",
      type: "text",
      className: "text",
      fixed: true,
      cell: (r) => ({ kind: "trend", svg: sparkline(r.trend, { label: `capacity trend of ${r.id}` }) }),
    },
  ];
}

/** The rate the client achieved at the capacity rate: a column of both the leaderboard and a model page. */
const ACHIEVED: FigureColumn<RateRow> = {
  heading: "achieved req/s",
  type: "num",
  title: "requests sent per second at the capacity rate, latest run",
  cell: (r) => ({ kind: "number", value: r.achievedAtCapacity, digits: 2 }),
};

/** The offered rate of the peak: a column of both the leaderboard and a model page. */
const PEAK_RATE: FigureColumn<RateRow> = {
  heading: "at req/s",
  type: "num",
  title: "the offered rate of the peak",
  cell: (r) => ({ kind: "number", value: r.peakRatePerSecond, digits: 2 }),
};

/** Open loops: ranked by capacity in requests/s at the SLO, with the rate achieved there. */
function ranking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const sameModel = sameModelById(views);
  const sloText = sloWords(slo(views));
  const { windowHours, maxRuns } = ctx.window;
  const columns: RankingColumns<RateRow> = {
    rankTitle: "1 + targets whose capacity interval lies wholly above; = marks a shared rank",
    notes: (r) => ({
      problem: problemOf(r.problem),
      notes: lastRunNote(r.errorRate, r.rateLimitRate),
      invalid: null,
      sameModel: sameModel.get(r.id) ?? null,
    }),
    figures: boardFigures(sloText),
  };
  const words: RankingWords = {
    kind: "open",
    id: "rate-leaderboard",
    heading: `LLM serving capacity in requests/s (${ctx.scenario})`,
    sectionHeading: `Serving capacity in requests/s${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "capacity",
    lead: `Requests arrive on their own schedule (Poisson, at set rates), whether or not earlier ones have finished, as users do. Each row shows the highest offered rate at which each user still got ${sloText}: the capacity in requests/s, and the rate the client actually achieved there.`,
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by capacity in requests per second`,
    caption: [
      `Capacity, TTFT, per-stream and aggregate figures are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      `); a run in which no rate met the SLO counts as 0 req/s. Under the capacity, the latest run's bracket it lies in, marked ladder or searched: a ladder's [highest rate that met, next rate run), or "not measured above R" where its top rate met; a search's [lo, hi] at its confidence. A ladder's capacity is the lower end of its bracket, so the column sorts on the lower end. Ranked by capacity: targets whose intervals overlap share a rank (=2). Achieved: requests sent per second at the latest run's capacity rate. TTFT p95 and per-stream tok/s are at that rate. Trend: capacity over the last runs.`,
    ],
    empty: "No runs yet.",
    footnote: `An open loop has no single-stream figure${ctx.section ? ", so these targets are ranked here and not above" : ""}; each rate's figures, with the rate achieved, requests in flight and how late sends left, are on each target's page.`,
    levelLinks: [],
  };
  // Each route on its own row, with its model named: rates are not grouped by model.
  return rankingTable(words, columns, rateRows(views), { grouped: false, ctx });
}

const LEVEL = { head: "offered req/s", cell: (r: number) => fmt(r, 2), inFlight: "in flight mean" };

/** An open-loop view's headline: "Label: sustains 4 req/s at the SLO, 1,200 tok/s at 8 req/s" (no concurrency: its levels are rates). */
export function rateHeadline(target: TargetView): string {
  const s = target.latest.summary;
  const parts: string[] = [];
  if (s.capacityRequestsPerSecond) parts.push(`sustains ${fmtRate(s.capacityRequestsPerSecond)} at the SLO`);
  const peakRate = rateOf(s.peak);
  if (s.peak)
    parts.push(`${fmt(s.peak.aggregateOutputTokensPerSecond)} tok/s${peakRate ? ` at ${fmtRate(peakRate)}` : ""}`);
  const label = simulatedLabel(target.label, target.simulated);
  return parts.length ? `${label}: ${parts.join(", ")}` : `${label}: no figures yet`;
}

/** An open-loop target page's headline figures: capacity in requests/s and what was achieved there, the peak, the knee. */
function headlines({ view }: TargetContext) {
  const { standing } = view;
  const s = view.latest.summary;
  const capacity = s.capacityRequestsPerSecond ?? null;
  const peak = standing.peak;
  const bracket = rateBracketText(s.capacityBracket);
  return [
    {
      label: "capacity at the SLO (last run)",
      id: "capacity-rate",
      value: fmtRate(capacity),
      ...(bracket ? { note: bracket } : {}),
      title: `highest offered rate meeting ${sloWords(standing.slo)}`,
    },
    {
      label: "achieved there",
      value: fmtRate(viewPoints(view).find((p) => p.position === capacity)?.achievedRatePerSecond),
    },
    {
      label: "peak aggregate tok/s",
      value: fmtEstimate(peak?.aggregateOutputTokensPerSecond),
      title: estimateTitle(peak?.aggregateOutputTokensPerSecond),
      ...(peak ? { note: `at ${fmtRate(rateOf(peak))}` } : {}),
    },
    {
      label: "knee",
      id: "knee-rate",
      title: "the lowest offered rate after which no higher rate raises the median aggregate tok/s by more than 15 %",
      value:
        standing.kneeRequestsPerSecond != null
          ? fmtRate(standing.kneeRequestsPerSecond)
          : standing.kneeRequestsPerSecond === null && !standing.saturated && peak !== null
            ? "not reached"
            : "—",
    },
    {
      label: "goodput peak (last run)",
      id: "goodput-peak",
      value: s.goodputPeak
        ? `${fmt(s.goodputPeak.goodputOutputTokensPerSecond)} tok/s at ${fmtRate(rateOf(s.goodputPeak))}`
        : "—",
    },
    { label: "errors / 429s (last run)", value: `${pct(s.errorRate)} / ${pct(s.rateLimitRate)}` },
  ];
}

const TARGET_SECTIONS: readonly SectionDef<TargetContext>[] = [
  {
    id: "rate",
    heading: "Against offered rate, latest run",
    figures: [
      curvesFigure(
        {
          id: "rate-throughput",
          title: "aggregate and goodput tok/s against offered rate",
          caption:
            "Aggregate output tok/s (circles) and goodput, the tok/s of requests that each met the SLO (squares), against the offered request rate; y axis from zero. Invalid rates are left out.",
          empty: "Nothing to draw: the latest run has no valid rate; its figures are in the tables below.",
        },
        () => null,
      ),
      latencyFigure({
        id: "rate-latency",
        title: "latency against offered rate",
        caption:
          "TTFT and end-to-end latency p50 (circles, solid) and p95 (squares, dashed), in ms on a log axis, against the offered request rate, one panel above the other.",
        empty: "Nothing to draw: the latest run has no valid rate; its latencies are in the tables below.",
      }),
    ],
    tables: ({ levels }) => [
      {
        id: "rate-numbers",
        label: "Each offered rate of the latest run",
        caption:
          "Per offered rate, latest run: the rate achieved, requests in flight, how late sends left, and the charts' numbers",
        columns: [
          { head: LEVEL.head },
          { head: "achieved req/s" },
          { head: "in flight mean" },
          { head: "in flight max" },
          { head: "send lag p99 ms" },
          { head: "aggregate tok/s" },
          { head: "goodput tok/s" },
          { head: "TTFT p50 ms" },
          { head: "TTFT p95 ms" },
          { head: "e2e p50 ms" },
          { head: "valid", class: "text" },
        ],
        rows: levels.map((p) => ({
          cells: [
            num(LEVEL.cell(p.position)),
            num(fmt(p.achievedRatePerSecond, 2)),
            num(fmt(p.inFlightMean, 1)),
            num(fmt(p.inFlightMax)),
            num(fmt(p.scheduleLagP99Ms, 1)),
            num(fmt(p.aggregateOutputTokensPerSecond)),
            num(fmt(p.goodputOutputTokensPerSecond)),
            num(fmt(p.ttftP50Ms)),
            num(fmt(p.ttftP95Ms)),
            num(fmt(p.e2eP50Ms)),
            text(p.valid ? "yes" : "no"),
          ],
        })),
      },
    ],
  },
];

const NO_VALID_RATE = "Nothing to draw: no route's latest run has a valid rate; the table below has their figures.";

const MODEL_SECTIONS: readonly SectionDef<ModelContext>[] = [
  {
    id: "model-rate",
    heading: "Against offered rate, latest runs",
    figures: [
      overlayFigure({
        id: "model-rate-latency",
        title: "latency against offered rate",
        measures: ["ttftP50", "e2eP50"],
        seriesName: "route",
        caption: withLeftOut(
          "Time to first token p50 (top) and end-to-end latency p50 (bottom) of each route, in ms, against the offered request rate (latest runs); y axes from zero; each route has its own colour and marker shape.",
          ratesLeftOut,
        ),
        empty: NO_VALID_RATE,
      }),
      overlayFigure({
        id: "model-rate-throughput",
        title: "goodput and aggregate tok/s against offered rate",
        measures: ["goodput", "aggregate"],
        seriesName: "route",
        caption: withLeftOut(
          "Goodput, the output tok/s of requests that each met the SLO (top), and aggregate output tok/s (bottom) of each route against the offered request rate (latest runs); y axes from zero.",
          ratesLeftOut,
        ),
        empty: NO_VALID_RATE,
      }),
    ],
    tables: ({ routes }) => {
      const byId = new Map(routes.map((t) => [t.id, t]));
      return [
        {
          id: "model-rate-numbers",
          label: "The charts' numbers: each offered rate of each route",
          caption: "Per route and offered rate, latest runs: the charts' numbers, valid or not",
          columns: [
            { head: "route", class: "text" },
            { head: "offered req/s" },
            { head: "achieved req/s" },
            { head: "TTFT p50 ms" },
            { head: "e2e p50 ms" },
            { head: "goodput tok/s" },
            { head: "aggregate tok/s" },
            { head: "valid", class: "text" },
          ],
          // Every rate of every route's latest run, valid or not, routes in the routes table's order.
          rows: rateRows(routes).flatMap((r) => {
            const t = byId.get(r.id) as TargetView;
            return viewPoints(t).map((p) => ({
              data: { "data-target": t.id },
              cells: [
                text(t.label),
                num(fmt(p.position, 2)),
                num(fmt(p.achievedRatePerSecond, 2)),
                num(fmt(p.ttftP50Ms)),
                num(fmt(p.e2eP50Ms)),
                num(fmt(p.goodputOutputTokensPerSecond)),
                num(fmt(p.aggregateOutputTokensPerSecond)),
                text(p.valid ? "yes" : "no"),
              ],
            }));
          }),
        },
      ];
    },
  },
];

/** A model's open-loop routes, ranked by capacity in requests/s. */
function routes(views: TargetView[], ctx: RoutesContext): RoutesTable {
  const columns: RankingColumns<RateRow> = {
    notes: () => ({ problem: null, notes: [], invalid: null, sameModel: null }),
    figures: [
      {
        heading: "capacity req/s",
        type: "num",
        sorted: true,
        title: "highest offered rate meeting the SLO, median over recent runs",
        cell: rateCapacityCell,
      },
      ACHIEVED,
      {
        heading: "peak aggregate tok/s",
        type: "num",
        cell: (r) => ({ kind: "estimate", estimate: r.peakAggregate, digits: 0, tooltip: true }),
      },
      PEAK_RATE,
    ],
  };
  return routesTable(
    { id: "model-rate-routes", label: "Routes ranked by capacity in requests per second", ...ctx },
    columns,
    rateRows(views),
  );
}

/** The latest run's capacity in requests/s and what it achieved there, and its peak with the peak's rate. */
function compareRow(view: TargetView) {
  const s = view.latest.summary;
  const capacity = s.capacityRequestsPerSecond ?? null;
  const level = capacity === null ? undefined : view.details?.levels.find((l) => atRate(l.load, capacity));
  return {
    capacityRequestsPerSecond: capacity,
    achievedRequestsPerSecond: level?.open?.achievedRatePerSecond ?? null,
    ttftP95AtCapacityMs: level?.ttftMs.p95 ?? null,
    peakAggregateOutputTokensPerSecond: s.peak?.aggregateOutputTokensPerSecond ?? null,
    peakRatePerSecond: rateOf(s.peak),
  };
}

function numbers(targets: TargetView[], href: (id: string) => string, board: string): TargetTable {
  return {
    label: "Capacity in requests per second of every target",
    caption: {
      before:
        "Each target's latest run, as the curves above: capacity is the highest offered rate whose level met the SLO; achieved is the rate the client sent at it. Medians over recent runs are on the ",
      link: board,
      after: ".",
    },
    columns: ["capacity req/s", "achieved req/s", "TTFT p95 ms at capacity", "peak aggregate tok/s", "at req/s"],
    rows: targets.map((t) => {
      const r = compareRow(t);
      return {
        id: t.id,
        label: t.label,
        href: href(t.id),
        cells: [
          { value: r.capacityRequestsPerSecond, digits: 2, title: fmtRate(r.capacityRequestsPerSecond) },
          { value: r.achievedRequestsPerSecond, digits: 2 },
          { value: r.ttftP95AtCapacityMs, digits: 0 },
          { value: r.peakAggregateOutputTokensPerSecond, digits: 0 },
          { value: r.peakRatePerSecond, digits: 2 },
        ],
      };
    }),
  };
}

export const open: KindView = {
  axis: "rate",
  level: LEVEL,
  run: { head: "capacity req/s", cell: (h) => fmt(h.capacityRequestsPerSecond, 2) },
  headline: rateHeadline,
  title: rateHeadline,
  description: (target) =>
    `${rateHeadline(target)}. Scenario ${target.scenario}: requests on an open loop; throughput, goodput, TTFT and end-to-end latency against the offered request rate, measured ${target.latest.startedAt.slice(0, 10)}.`,
  headlines,
  scenarioNote: "request rates",
  board: {
    ranking,
    title: (scenario) => `LLM serving capacity in requests/s: scenario ${scenario}`,
    description: (targets, scenario) => {
      const top = rateRows(targets).find((r) => r.capacity !== null);
      return `${targets.length} LLM ${targets.length === 1 ? "endpoint" : "endpoints"} in scenario ${scenario}, requests on an open loop, ranked by capacity in requests/s at the SLO.${
        top?.capacity ? ` Highest: ${simulatedLabel(top.label, top.simulated)}, ${fmtRate(top.capacity.median)}.` : ""
      }`;
    },
  },
  target: TARGET_SECTIONS,
  model: {
    heading: "Routes: capacity in requests/s",
    note: "Requests on an open loop (Poisson arrivals at set rates): their p50 curves against the offered rate are overlaid below; each route's page has its p95 too.",
    routes,
    sections: MODEL_SECTIONS,
  },
  compare: {
    title: "Compare LLM serving capacity",
    loadNote:
      ", against the offered request rate: requests in this scenario arrive on an open loop (Poisson, at set rates)",
    description: (targets, endpoints, inScenario) =>
      `Capacity in requests/s and throughput against the offered request rate of ${endpoints}${inScenario}, overlaid. ${targets
        .slice(0, 3)
        .map((t) => rateHeadline(t))
        .join("; ")}.`,
    charts: [
      {
        measure: "aggregate",
        caption:
          "Aggregate tok/s of the picked targets against the offered request rate, y axis from zero; each target has its own colour and marker shape.",
      },
      {
        measure: "goodput",
        caption:
          "Goodput tok/s (the output of requests that each met the SLO) of the picked targets against the offered request rate, y axis from zero.",
      },
      {
        measure: "ttftP95",
        caption: "Time to first token p95 of the picked targets against the offered request rate, ms on a log axis.",
      },
    ],
    numbers,
    tradeoff: false,
  },
  atN: false,
  csv: (load) =>
    load.kind === "open"
      ? { concurrency: null, ratePerSecond: load.ratePerSecond, burstiness: load.burstiness ?? null, speedup: null }
      : { concurrency: null, ratePerSecond: null, burstiness: null, speedup: null },
  knee: (standing) => standing.kneeRequestsPerSecond ?? null,
  // The latest run's, as the leaderboard shows under the median capacity.
  capacityBracket: (view) => view.latest.summary.capacityBracket,
};
