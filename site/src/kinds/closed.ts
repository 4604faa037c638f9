/**
 * @module The closed loop: N requests kept in flight, each one's end starting the next. Its levels
 * are concurrencies (log-2 axis); it is ranked by peak aggregate tok/s with single-stream speed and
 * TTFT beside it, each N has its own leaderboard, and its target page draws the standing's median
 * curves, the latest run's curves, the trade-off and latency against N.
 */
import { concurrencyOf, loadWords, sameLoad } from "@kneeboard/core/run";
import type { Estimate } from "@kneeboard/core/standing";
import { levelPoints, MEASURES, standingCurvesSpec, tradeoffSpec } from "../lib/charts/index.ts";
import type { TargetTable } from "../lib/compare.ts";
import { estimateTitle, fmt, fmtEstimate, pct, when } from "../lib/format.ts";
import { capacityBracketOf, type LeaderboardRow, leaderboardRows } from "../lib/leaderboard.ts";
import { costNote, curvesLeftOut, levelsRun, sloWords, usd } from "../lib/models.ts";
import {
  type FigureColumn,
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
import { searchedCapacity, searchedKnee, searchedLoad } from "../lib/search.ts";
import { headline, headlineFigures, leaderboardDescription, users } from "../lib/share.ts";
import type { TargetView } from "../lib/site-data.ts";
import { TREND_RUNS } from "../lib/site-data.ts";
import { sparkline } from "../lib/sparkline.ts";
import { num, text } from "../lib/table.ts";
import {
  curvesFigure,
  drawableAll,
  figuresOf,
  latencyFigure,
  type ModelContext,
  noTables,
  overlayFigure,
  type SectionDef,
  type TargetContext,
  TRADEOFF_TITLE,
  withLeftOut,
} from "../lib/target-charts.ts";
import { est, ladderBracketText, levelAttr, levelCell, searchedBracketText } from "./cells.ts";
import type { KindView, RoutesContext } from "./view.ts";

const LEVEL = {
  head: "concurrency N",
  cell: (n: number) => String(n),
  inFlight: "achieved concurrency",
};
const at = (load: Parameters<typeof levelAttr>[1]) => levelAttr("concurrency", load);
const cell = (load: Parameters<typeof levelCell>[1]) => levelCell(LEVEL, load);

/** A closed loop's leaderboard figures after rank and name: single-stream, the peak, capacity, cost and trend. */
function boardFigures(sloText: string): FigureColumn<LeaderboardRow>[] {
  return [
    {
      heading: "single-stream tok/s",
      type: "num",
      title: "output tokens per second of one request alone, p50 at concurrency 1",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.singleStreamTokensPerSecond,
        digits: 1,
        tooltip: false,
        ...notMeasured(r),
      }),
    },
    {
      heading: "TTFT p50 ms",
      type: "num",
      title: "time to first token at concurrency 1, p50",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.singleStreamTtftP50Ms,
        digits: 0,
        tooltip: false,
        ...notMeasured(r),
      }),
    },
    {
      heading: "peak aggregate tok/s",
      type: "num",
      sorted: true,
      title:
        "highest aggregate output tokens per second over the valid levels, read where all N are in flight (the level's steady window); 'whole level' marks a peak read over its whole level, ramp and drain included, where the level was too short for a steady window",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.peakAggregateTokensPerSecond,
        digits: 0,
        tooltip: true,
        ...(r.peakWholeLevel ? { note: WHOLE_LEVEL } : {}),
      }),
    },
    {
      heading: "at N",
      type: "num",
      title: "the concurrency of the peak",
      cell: (r) => ({ kind: "number", value: r.peakConcurrency, digits: 0 }),
    },
    {
      heading: "per-stream at peak",
      type: "num",
      title: "per-stream output tok/s (p50) at the peak",
      cell: (r) => ({ kind: "estimate", estimate: r.perStreamAtPeakTokensPerSecond, digits: 1, tooltip: false }),
    },
    {
      heading: "capacity",
      sub: `serves N users at ${sloText}`,
      type: "num",
      className: "capacity",
      title:
        "highest level whose medians meet the SLO (per-stream p50 and TTFT p95, a failed request counted as a miss), with its bracket, marked ladder or searched; where the levels were searched, the median of the standing's searched runs (how they found it on hover); sorted on the lower end",
      cell: (r) => capacityCell(r, "searched"),
    },
    {
      heading: "$/Mtok at peak",
      type: "num",
      className: "cost",
      title:
        "cost per million output tokens at the peak, metered by the gateway and declared by the operator's pricing (latest run)",
      cell: (r) => ({ kind: "cost", ...r.costAtPeak }),
    },
    {
      heading: "trend",
      type: "text",
      className: "text",
      fixed: true,
      cell: (r) => ({
        kind: "trend",
        svg: sparkline(r.trend, { label: `trend of ${r.id}` }),
        title: `last measured ${when(r.measuredAt)}`,
      }),
    },
  ];
}

/** What a leaderboard row says under a closed loop's name: its problem, a stand-in run, the last run's errors, invalid levels, same model. */
function boardNotes(views: readonly TargetView[], ctx: RankingContext): RankingColumns<LeaderboardRow>["notes"] {
  const sameModel = sameModelById(views);
  const { windowHours } = ctx.window;
  return (r) => ({
    problem: problemOf(r.problem),
    notes: [
      ...(r.beyondWindow ? [`no valid run in the last ${windowHours} hours: the latest valid run stands in`] : []),
      ...lastRunNote(r.errorRate, r.rateLimitRate),
    ],
    invalid:
      r.invalidLevels.length > 0
        ? {
            text: `invalid in some runs at ${r.invalidLevels.map((l) => l.at).join(", ")}`,
            title: r.invalidLevels
              .map((l) => `${l.at} invalid in ${l.invalidRuns} of ${l.runs} runs: ${l.reasons.join("; ")}`)
              .join("\n"),
            href: `${ctx.targetHref(r.id)}#standing-levels`,
          }
        : null,
    sameModel: sameModel.get(r.id) ?? null,
  });
}

/** Closed loops: ranked by peak aggregate tok/s, with single-stream speed and TTFT beside it. */
function ranking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const sloText = sloWords(slo(views));
  const { windowHours, maxRuns } = ctx.window;
  const columns: RankingColumns<LeaderboardRow> = {
    rankTitle: "1 + targets whose peak aggregate interval lies wholly above; = marks a shared rank",
    notes: boardNotes(views, ctx),
    figures: boardFigures(sloText),
  };
  const words: RankingWords = {
    kind: "closed",
    id: "leaderboard",
    heading: `LLM throughput: one user, and everyone at once${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `One user, and everyone at once${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "throughput",
    lead: "A single request shows what one waiting user gets; under load each stream slows down while the fleet's total rises, until it stops rising at the knee. So every row shows both: single-stream speed and TTFT, and the peak aggregate throughput with what each stream still gets there.",
    label: "Leaderboard, one row per target, in rank order, grouped by model",
    caption: [
      `Each figure is the median over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs; the latest valid run when none is that recent), with the interval that bounds it in brackets below it (`,
      `; the peak's tooltip says how many runs). Ranked by peak aggregate tok/s: targets whose intervals overlap share a rank (=2). Rows run in rank order; a model's routes sit together under their model wherever no other model ranks between them. Clicking a column header sorts all rows and drops the grouping. Capacity: the most users served at ${sloText} (a failed request counts as a miss), with the bracket it lies in below it: a ladder's [highest level that met, next level run), or "not measured above N" where its top level met; where a target's levels were searched, the median of its searched runs with the newest run's bracket at its confidence, how they found it on hover. Sorted on the lower end. Single-stream figures say "not measured" where no run ran N = 1. Trend: peak aggregate over the last ${TREND_RUNS} runs. Runs, knee, scaling efficiency, errors and the latest run's levels are on each target's page.`,
    ],
    empty: "No runs yet. Run `npm start` or `kneeboard run --config FILE`.",
    footnote: null,
    levelLinks: levelsRun([...views]).map((n) => ({ text: `N=${n}`, href: `at/${n}/` })),
  };
  return rankingTable(words, columns, leaderboardRows([...views]), { grouped: true, ctx });
}

/**
 * A row's capacity cell: the figure, the bracket it lies in and how it was found, sorted on the
 * bracket's lower end. Searched: the median of the standing's searched runs with their interval, and
 * the newest run's `[lo, hi]` at its confidence (how the runs found it on hover). A ladder: the highest
 * level that met the SLO and `[lo, hi)` to the next level run; "not measured above N" where the top
 * level met it, "below N" where even the lowest missed.
 */
function capacityCell(
  r: Pick<LeaderboardRow, "capacityConcurrency" | "capacitySearched" | "capacityTitle" | "capacityBracket">,
  searchedClass: string,
  ladderClass?: string,
): Cell {
  const b = r.capacityBracket;
  if (b.kind === "searched") {
    const e = r.capacitySearched;
    // A median of an even number of runs may fall between two whole users.
    const digits = e && !Number.isInteger(e.median) ? 1 : 0;
    return {
      kind: "capacity",
      value: e?.median ?? null,
      text: fmt(e?.median, digits),
      interval: e && e.low !== e.high ? `${fmt(e.low, digits)}-${fmt(e.high, digits)}` : null,
      bracket: `${searchedBracketText(b)}, searched`,
      ...(r.capacityTitle ? { title: r.capacityTitle } : {}),
      className: searchedClass,
    };
  }
  return {
    kind: "capacity",
    value: b.lo ?? (b.hi !== null ? 0 : null),
    text: b.lo !== null ? fmt(b.lo) : b.hi !== null ? `below ${fmt(b.hi)}` : "—",
    interval: null,
    bracket: ladderBracketText(b),
    title:
      "a ladder's capacity: the highest level that met the SLO; the capacity lies between it and the next level run",
    ...(ladderClass ? { className: ladderClass } : {}),
  };
}

/** The mark of a peak read over its whole level: the level was too short for a steady window (docs/methodology.md#the-steady-window). */
const WHOLE_LEVEL = "whole level";

/** A single-stream cell's words where no run of the standing ran N = 1. */
const notMeasured = (r: Pick<LeaderboardRow, "singleStreamMeasured">) =>
  r.singleStreamMeasured ? {} : { missing: "not measured" };

/** A target page's headline figures of a closed loop: single-stream, the peak, the knee, capacity in users. */
export function closedHeadlines({ view }: TargetContext) {
  const { standing } = view;
  const s = view.latest.summary;
  const single = standing.singleStream;
  const peak = standing.peak;
  // Searched levels: the search's answer, as the leaderboard shows it (the median curve's levels differ run to run).
  const searched = searchedCapacity(view);
  const searchedKneeOver = searchedKnee(view);
  // Without a valid run nothing stands, measured or not: a plain dash.
  const measuredOne = standing.runIds.length === 0 || standing.levels.some((l) => concurrencyOf(l.load) === 1);
  const bracket = capacityBracketOf(view);
  const peakWholeLevel =
    peak !== null && view.latest.levels.some((l) => sameLoad(l.load, peak.load) && l.aggregateWindow === "whole_level");
  return [
    {
      label: "single-stream tok/s (p50, N=1)",
      value: measuredOne ? fmtEstimate(single?.outputTokensPerSecond, 1) : "not measured",
      title: estimateTitle(single?.outputTokensPerSecond),
    },
    {
      label: "single-stream TTFT p50",
      value: measuredOne ? `${fmtEstimate(single?.ttftP50Ms)}${single?.ttftP50Ms ? " ms" : ""}` : "not measured",
      title: estimateTitle(single?.ttftP50Ms),
    },
    {
      label: "peak aggregate tok/s",
      value: fmtEstimate(peak?.aggregateOutputTokensPerSecond),
      title: estimateTitle(peak?.aggregateOutputTokensPerSecond),
      ...(peak
        ? { note: `at ${loadWords(peak.load)}${peakWholeLevel ? `, over the ${WHOLE_LEVEL}: no steady window` : ""}` }
        : {}),
    },
    {
      label: "per-stream tok/s at the peak",
      value: fmtEstimate(peak?.perStreamOutputTokensPerSecond, 1),
      title: estimateTitle(peak?.perStreamOutputTokensPerSecond),
    },
    searchedKneeOver
      ? {
          label: "knee (searched)",
          id: "searched-knee",
          value: fmtSearched(searchedKneeOver.estimate),
          title: searchedKneeOver.title,
        }
      : {
          label: "knee",
          // No valid level stands (no median curve, so no peak): a knee is neither reached nor "not reached".
          value: String(standing.kneeConcurrency ?? (standing.saturated || peak === null ? "—" : "not reached")),
        },
    searched
      ? {
          label: "capacity at the SLO (searched)",
          id: "searched-capacity",
          value: fmtSearched(searched.estimate),
          title: searched.title,
        }
      : {
          label: "capacity at the SLO",
          value:
            bracket.lo !== null
              ? searchedLoad("concurrency", bracket.lo)
              : bracket.hi !== null
                ? `below ${searchedLoad("concurrency", bracket.hi)}`
                : "—",
          ...(bracket.lo !== null || bracket.hi !== null ? { note: ladderBracketText(bracket) } : {}),
          title: `per-stream p50 ${sloWords(standing.slo)}, on the medians, failed requests counted as misses; the capacity lies between the highest level that met it and the next level run`,
        },
    {
      label: "goodput peak (last run)",
      id: "goodput-peak",
      value: s.goodputPeak
        ? `${fmt(s.goodputPeak.goodputOutputTokensPerSecond)} tok/s at ${loadWords(s.goodputPeak.load)}`
        : "—",
    },
    { label: "scaling efficiency", value: pct(standing.scalingEfficiency, 0) },
    { label: "errors / 429s (last run)", value: `${pct(s.errorRate)} / ${pct(s.rateLimitRate)}` },
  ];
}

/** A searched figure over runs as a headline: `10 users (9-11)`, the interval where the runs differ. */
function fmtSearched(e: Estimate | null): string {
  if (e === null) return "—";
  const interval = e.low === e.high ? "" : ` (${fmt(e.low)}-${fmt(e.high)})`;
  // The interval's ends are probed loads, whole users; the median of an even number of runs may not be.
  return `${searchedLoad("concurrency", e.median)}${interval}`;
}

const noValidLevel = "the latest run has no valid level";

/** A closed loop's target page sections: the standing's curves, the latest run's, the trade-off, latency. */
export const CLOSED_TARGET_SECTIONS: readonly SectionDef<TargetContext>[] = [
  {
    id: "standing",
    heading: "Over recent runs",
    figures: [
      {
        id: "standing-curves",
        title: "median over recent runs, with intervals",
        caption:
          "Median aggregate tok/s (circles, left axis) and median per-stream tok/s (squares, right axis) over the runs above; the bands are the intervals bounding each median. Levels valid in fewer than half of the runs are not drawn; they are listed below. Both axes start at zero.",
        empty: "Nothing to draw: no valid run yet.",
        spec: ({ view: { standing } }) =>
          standing.levels.some((l) => l.ranked)
            ? standingCurvesSpec({
                title: "median over recent runs, with intervals",
                levels: standing.levels,
                knee: standing.kneeConcurrency,
              })
            : null,
      },
    ],
    tables: ({ view }) => {
      const { standing } = view;
      const runs = standing.runIds.length;
      if (standing.levels.length === 0) return [];
      return [
        {
          id: "standing-levels",
          label: "Per level over recent runs",
          caption:
            "Per level: median (interval), over the runs in which the level was valid; per-stream and TTFT over the ok requests, whether it meets the SLO over every request (a failed one counted as a miss)",
          columns: [
            { head: "concurrency" },
            { head: "valid runs" },
            { head: "aggregate tok/s" },
            { head: "per-stream tok/s p50 (ok requests)" },
            { head: "TTFT p50 ms (ok requests)" },
            { head: "TTFT p95 ms (ok requests)" },
            { head: "goodput tok/s" },
            { head: "meets SLO", class: "text" },
            { head: "ranked", class: "text" },
          ],
          rows: standing.levels.map((l) => ({
            data: at(l.load),
            cells: [
              cell(l.load),
              num(`${l.validRuns} of ${runs}`),
              est(l.aggregateOutputTokensPerSecond),
              est(l.perStreamOutputTokensPerSecondP50, 1),
              est(l.ttftP50Ms),
              est(l.ttftP95Ms),
              est(l.goodputOutputTokensPerSecond),
              text(l.meetsSlo === null ? "—" : l.meetsSlo ? "yes" : "no"),
              text(
                `${l.ranked ? "yes" : "no"}${l.invalidRuns > 0 ? ` (invalid in ${l.invalidRuns} of ${runs} runs: ${l.invalidReasons.join("; ")})` : ""}`,
              ),
            ],
          })),
        },
      ];
    },
  },
  {
    id: "throughput",
    heading: "Throughput against concurrency, latest run",
    figures: [
      curvesFigure(
        {
          id: "curves",
          title: "per-stream and aggregate tok/s",
          caption:
            "Aggregate tok/s (all streams, circles, left axis) rises with concurrency while per-stream tok/s (one user, squares, right axis) falls; the dashed line marks the knee. Both axes start at zero.",
          empty: `Nothing to draw: ${noValidLevel}; its figures are in the table below, valid or not.`,
        },
        (v) => v.latest.summary.kneeConcurrency,
      ),
    ],
    tables: ({ view }) => [
      {
        id: "curve-numbers",
        label: "The numbers of the throughput chart",
        caption: "The numbers of the chart (latest run)",
        columns: [
          "concurrency",
          "aggregate tok/s",
          "read over",
          "per-stream tok/s p50",
          "TTFT p50 ms",
          "e2e p50 ms",
          "valid",
        ].map((head) => ({ head })),
        rows: view.latest.levels.map((l) => ({
          cells: [
            cell(l.load),
            num(fmt(l.aggregateOutputTokensPerSecond)),
            // The headline's window: all N in flight, or the whole level where it had no steady window.
            text(
              l.aggregateWindow === "steady"
                ? "steady window"
                : l.aggregateWindow === "whole_level"
                  ? "whole level"
                  : "—",
            ),
            num(fmt(l.perStreamOutputTokensPerSecondP50, 1)),
            num(fmt(l.ttftP50Ms)),
            num(fmt(l.e2eP50Ms)),
            num(l.valid ? "yes" : "no"),
          ],
        })),
      },
    ],
  },
  {
    id: "tradeoff",
    heading: "What each user gets against what all get",
    figures: [
      {
        id: "tradeoff",
        title: TRADEOFF_TITLE,
        caption:
          "Per-stream tok/s p50 (x, one user) against aggregate tok/s (y, all streams), points labelled with their concurrency N where the labels do not overlap (every point is in the table below); both axes from zero. Invalid levels are left out.",
        empty: `Nothing to draw: ${noValidLevel}; the table below has its figures, goodput and cost.`,
        spec: (c) =>
          drawableAll(c.levels, figuresOf(["aggregate", "perStream"]))
            ? tradeoffSpec({
                title: TRADEOFF_TITLE,
                axis: c.axis,
                series: [{ targetId: c.view.id, label: c.view.label, levels: c.levels }],
              })
            : null,
      },
    ],
    tables: ({ view }) => [
      {
        id: "tradeoff-numbers",
        label: "The numbers of the trade-off chart, with goodput, the SLO and cost",
        caption:
          "Per level, latest run: the chart's numbers (over the ok requests), goodput, whether the level met the SLO and the SLO's own figures over every request (a failed one counted as a miss), and cost per million output tokens",
        columns: [
          { head: "concurrency" },
          { head: "per-stream tok/s p50" },
          { head: "aggregate tok/s" },
          { head: "goodput tok/s" },
          { head: "meets SLO", class: "text" },
          { head: "SLO TTFT p95 ms (failed: ∞)" },
          { head: "SLO per-stream p50 (failed: 0)" },
          { head: "metered $/Mtok", class: "text" },
          { head: "declared $/Mtok", class: "text" },
        ],
        rows: view.latest.levels.map((l) => {
          const note = costNote(l.meteredUsdPerMillionOutputTokens, l.declaredUsdPerMillionOutputTokens);
          return {
            data: at(l.load),
            cells: [
              cell(l.load),
              num(fmt(l.perStreamOutputTokensPerSecondP50, 1)),
              num(fmt(l.aggregateOutputTokensPerSecond)),
              num(fmt(l.goodputOutputTokensPerSecond)),
              text(l.meetsSlo === null ? "—" : l.meetsSlo ? "yes" : "no"),
              // The SLO's own figures, every request counted, a failed one as a miss; a p95 on a failed one is infinite.
              num(l.sloFigures === null ? "—" : l.sloFigures.ttftP95Ms === null ? "∞" : fmt(l.sloFigures.ttftP95Ms)),
              num(fmt(l.sloFigures?.perStreamOutputTokensPerSecondP50, 1)),
              text(usd(l.meteredUsdPerMillionOutputTokens), {
                class: "cost",
                ...(note ? { note, noteClass: "note cost-note" } : {}),
              }),
              text(usd(l.declaredUsdPerMillionOutputTokens)),
            ],
          };
        }),
      },
    ],
  },
  {
    id: "latency",
    heading: "Latency against concurrency",
    figures: [
      latencyFigure({
        id: "latency",
        title: "latency against concurrency",
        caption:
          "TTFT and end-to-end latency p50 (circles, solid), p95 (squares, dashed) and p99 (triangles, dotted), in ms on a log axis; the numbers are in the level tables below.",
        empty: `Nothing to draw: ${noValidLevel}; its latencies are in the level tables below.`,
      }),
    ],
    tables: noTables,
  },
];

const NO_VALID_LEVEL = "Nothing to draw: no route's latest run has a valid level; the tables below have their figures.";

/** A closed loop's model page sections: each route's curves overlaid, and the trade-off with its numbers. */
export const CLOSED_MODEL_SECTIONS: readonly SectionDef<ModelContext>[] = [
  {
    id: "model-curves",
    heading: "Curves",
    figures: [
      overlayFigure({
        id: "model-aggregate",
        title: MEASURES.aggregate.title,
        measures: ["aggregate"],
        seriesName: "target",
        caption: withLeftOut(
          "Aggregate tok/s of each route against concurrency (latest runs), y axis from zero; each route has its own colour and marker shape.",
          curvesLeftOut,
        ),
        empty: NO_VALID_LEVEL,
      }),
      overlayFigure({
        id: "model-perstream",
        title: MEASURES.perStream.title,
        measures: ["perStream"],
        seriesName: "target",
        caption: withLeftOut(
          "Per-stream tok/s (p50) of each route against concurrency (latest runs), y axis from zero.",
          curvesLeftOut,
        ),
        empty: NO_VALID_LEVEL,
      }),
    ],
    // The curves' numbers are the trade-off's table below and the tables per level.
    tables: noTables,
  },
  {
    id: "model-tradeoff",
    heading: null,
    figures: [
      {
        id: "model-tradeoff",
        title: TRADEOFF_TITLE,
        caption: withLeftOut(
          "What each user gets (x) against what all users get (y), one line per route, points labelled with their concurrency N where the labels do not overlap (every point is in the table); both axes from zero.",
          curvesLeftOut,
        ),
        empty: NO_VALID_LEVEL,
        spec: (c) =>
          c.series.some((s) => drawableAll(s.levels, figuresOf(["aggregate", "perStream"])))
            ? tradeoffSpec({ title: TRADEOFF_TITLE, axis: c.axis, series: c.series })
            : null,
      },
    ],
    tables: ({ routes }) => [
      {
        id: "model-tradeoff-numbers",
        label: "The curves' numbers",
        columns: [
          { head: "route", class: "text" },
          { head: "N" },
          { head: "per-stream tok/s p50" },
          { head: "aggregate tok/s" },
          { head: "goodput tok/s" },
          { head: "valid", class: "text" },
        ],
        rows: routes.flatMap((t) =>
          levelPoints(t.latest.levels).map((p) => ({
            data: { "data-target": t.id },
            cells: [
              text(t.label),
              num(String(p.position)),
              num(fmt(p.perStreamOutputTokensPerSecondP50, 1)),
              num(fmt(p.aggregateOutputTokensPerSecond)),
              num(fmt(p.goodputOutputTokensPerSecond)),
              text(p.valid ? "yes" : "no"),
            ],
          })),
        ),
      },
    ],
  },
];

/** A model page's closed-loop routes: capacity, goodput and cost side by side (every figure's interval on hover). */
function routeFigures(sloText: string, byId: Map<string, TargetView>): FigureColumn<LeaderboardRow>[] {
  return [
    {
      heading: "single-stream tok/s",
      type: "num",
      title: "output tok/s of one request alone, p50 at concurrency 1",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.singleStreamTokensPerSecond,
        digits: 1,
        tooltip: true,
        ...notMeasured(r),
      }),
    },
    {
      heading: "TTFT p50 ms",
      type: "num",
      title: "time to first token at concurrency 1, p50",
      cell: (r) => ({
        kind: "estimate",
        estimate: r.singleStreamTtftP50Ms,
        digits: 0,
        tooltip: true,
        ...notMeasured(r),
      }),
    },
    {
      heading: "peak aggregate tok/s",
      type: "num",
      sorted: true,
      cell: (r) => ({ kind: "estimate", estimate: r.peakAggregateTokensPerSecond, digits: 0, tooltip: true }),
    },
    { heading: "at N", type: "num", cell: (r) => ({ kind: "number", value: r.peakConcurrency, digits: 0 }) },
    {
      heading: "per-stream at peak",
      type: "num",
      title: "per-stream output tok/s (p50) at the peak",
      cell: (r) => ({ kind: "estimate", estimate: r.perStreamAtPeakTokensPerSecond, digits: 1, tooltip: true }),
    },
    {
      heading: "capacity",
      sub: `serves N users at ${sloText}`,
      type: "num",
      className: "capacity",
      title: "highest level whose medians meet the SLO: per-stream p50 and TTFT p95",
      cell: (r) => capacityCell(r, "capacity searched", "capacity"),
    },
    {
      heading: "goodput peak tok/s",
      type: "num",
      title: "the highest goodput (output tok/s of requests that each met the SLO) over the latest run's levels",
      cell: (r) => {
        const gp = byId.get(r.id)?.latest.summary.goodputPeak;
        return {
          kind: "number",
          value: gp?.goodputOutputTokensPerSecond ?? null,
          digits: 0,
          className: "goodput",
          ...(gp ? { suffix: ` at ${loadWords(gp.load)}` } : {}),
        };
      },
    },
    {
      heading: "$/Mtok at peak",
      type: "num",
      className: "cost",
      title: "USD per million output tokens at the peak, latest run",
      cell: (r) => ({ kind: "cost", ...r.costAtPeak }),
    },
  ];
}

/** A model's closed-loop routes ranked by peak aggregate tok/s over recent runs: capacity, goodput and cost side by side. */
export function closedRoutes(routes: TargetView[], ctx: RoutesContext): RoutesTable {
  const byId = new Map(routes.map((t) => [t.id, t]));
  const columns: RankingColumns<LeaderboardRow> = {
    notes: (r) => {
      const { route } = (byId.get(r.id) as TargetView).latest;
      return {
        problem: problemOf(r.problem),
        notes: [`${route.gateway}${route.provider ? ` → ${route.provider}` : ""}`],
        invalid: null,
        sameModel: null,
      };
    },
    figures: routeFigures(ctx.slo, byId),
  };
  return routesTable(
    { id: "model-routes", label: `Routes of ${ctx.modelKey}: capacity, goodput and cost`, ...ctx },
    columns,
    leaderboardRows(routes),
  );
}

/** The compare page's overlays of closed loops. */
export const CLOSED_COMPARE: KindView["compare"] = {
  title: "Compare LLM throughput curves",
  loadNote: "",
  description: (targets, endpoints, inScenario) =>
    `Throughput against concurrency of ${endpoints}${inScenario}, overlaid. ${targets
      .slice(0, 3)
      .map((t) => headline(headlineFigures(t)))
      .join("; ")}.`,
  charts: [
    {
      measure: "aggregate",
      caption:
        "Aggregate tok/s of the picked targets against concurrency, y axis from zero; each target has its own colour and marker shape.",
    },
    {
      measure: "perStream",
      caption: "Per-stream tok/s (p50) of the picked targets against concurrency, y axis from zero.",
    },
  ],
  numbers: (targets, href): TargetTable => ({
    label: "Headline figures of every target",
    caption: null,
    columns: ["single-stream tok/s", "peak aggregate tok/s", "at N", "per-stream at peak"],
    rows: targets.map((t) => {
      const { singleStream, peak } = t.latest.summary;
      return {
        id: t.id,
        label: t.label,
        href: href(t.id),
        cells: [
          { value: singleStream?.outputTokensPerSecond, digits: 1 },
          { value: peak?.aggregateOutputTokensPerSecond, digits: 0 },
          { value: peak ? concurrencyOf(peak.load) : null, digits: 0 },
          { value: peak?.perStreamOutputTokensPerSecond, digits: 1 },
        ],
      };
    }),
  }),
  tradeoff: true,
};

/** A closed loop's target page description: the headline, what the page shows, and when it was measured. */
function description(target: TargetView): string {
  const knee = target.latest.summary.kneeConcurrency;
  return `${headline(headlineFigures(target))}${knee === null ? "" : `; the knee at ${users(knee)}`}. Throughput, TTFT and tail latency against concurrency, and every run since ${target.history[0]?.startedAt.slice(0, 10) ?? "the first"}, measured ${target.latest.startedAt.slice(0, 10)}.`;
}

export const closed: KindView = {
  axis: "concurrency",
  level: LEVEL,
  run: { head: "knee", cell: (h) => (h.kneeConcurrency === null ? "—" : String(h.kneeConcurrency)) },
  headline: (view) => headline(headlineFigures(view)),
  title: (view) => headline(headlineFigures(view)),
  description,
  headlines: closedHeadlines,
  scenarioNote: null,
  board: {
    ranking,
    title: (scenario) => `LLM throughput leaderboard: scenario ${scenario}`,
    description: (views, scenario, scenarioCount) => {
      const base = leaderboardDescription(views);
      return scenarioCount > 1 ? `${base} Scenario ${scenario}.` : base;
    },
  },
  target: CLOSED_TARGET_SECTIONS,
  model: { heading: "Routes: capacity and cost", note: null, routes: closedRoutes, sections: CLOSED_MODEL_SECTIONS },
  compare: CLOSED_COMPARE,
  atN: true,
  csv: (load) => ({ concurrency: concurrencyOf(load), ratePerSecond: null, burstiness: null, speedup: null }),
  knee: (standing) => standing.kneeConcurrency,
  capacityBracket: capacityBracketOf,
};
