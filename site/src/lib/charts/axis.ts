/**
 * @module The load axis every level chart is drawn against, and the figures (measures) a chart of it
 * may draw. A level is a point at its `position` on its load's axis (`loadAxis`, `loadPosition` in
 * @kneeboard/core/run): a closed loop's concurrency, an open loop's offered rate. What differs between
 * the axes (scale, tick format, which throughputs tell the story, which percentiles, whether invalid
 * levels are drawn) is data in `AXES`; the spec functions read it and never branch on the load kind.
 * A new load kind adds its axis entry here (or reuses one), not a spec.
 */
import { figureHeading } from "@kneeboard/core/labels";
import {
  type Load,
  type LoadAxis,
  levelSchedule,
  loadAxis,
  loadPosition,
  type ScheduleFigures,
} from "@kneeboard/core/run";

export type { LoadAxis };

/** Axis titles from the core's one table of figure labels, with what each figure counts. */
export const AGGREGATE_TITLE = `${figureHeading("aggregateOutputTokensPerSecond")} (all streams)`;
export const PER_STREAM_TITLE = `${figureHeading("perStreamOutputTokensPerSecondP50")} (one user)`;
export const CONCURRENCY_TITLE = "concurrency (requests in flight)";
export const SPEEDUP_TITLE = "speedup of the replayed trace (x)";
export const RATE_TITLE = "offered rate (requests/s)";

/** The per-level figures a chart draws, each null where the level has none. */
export const LEVEL_FIGURES = [
  "aggregateOutputTokensPerSecond",
  "perStreamOutputTokensPerSecondP50",
  "goodputOutputTokensPerSecond",
  "ttftP50Ms",
  "ttftP95Ms",
  "ttftP99Ms",
  "e2eP50Ms",
  "e2eP95Ms",
  "e2eP99Ms",
  "achievedRatePerSecond",
  "inFlightMean",
  "inFlightMax",
  "scheduleLagP50Ms",
  "scheduleLagP99Ms",
] as const;
export type LevelFigure = (typeof LEVEL_FIGURES)[number];

/** One level as the charts and their tables take it: where it sits on its axis, its figures, and whether it is valid. */
export type LevelPoint = {
  axis: LoadAxis;
  position: number;
  valid: boolean;
  /** A searched level's place in the order the search ran its levels (1 first); null for a ladder's. */
  probeOrder: number | null;
} & Record<LevelFigure, number | null>;

/** A level as the site index holds it: the index's figures (`LevelFigures`) or the run document's level. */
interface IndexLevel {
  load: Load;
  valid: boolean;
  probe?: { order: number } | null;
  aggregateOutputTokensPerSecond: number | null;
  perStreamOutputTokensPerSecondP50?: number | null;
  goodputOutputTokensPerSecond?: number | null;
  ttftP50Ms?: number | null;
  ttftP95Ms?: number | null;
  ttftP99Ms?: number | null;
  e2eP50Ms?: number | null;
  e2eP95Ms?: number | null;
  e2eP99Ms?: number | null;
}
interface DocumentLevel {
  load: Load;
  valid: boolean;
  probe?: { order: number } | null;
  aggregateOutputTokensPerSecond: number | null;
  goodputOutputTokensPerSecond?: number | null;
  /** What a schedule sent, under the level's kind (`open`, `trace`): read through `levelSchedule`. */
  open?: ScheduleFigures | null;
  trace?: (ScheduleFigures & { reusablePromptTokenShare: number | null }) | null;
  perStream: { outputTokensPerSecond: { p50: number | null } };
  ttftMs: { p50: number | null; p95: number | null; p99: number | null };
  e2eMs: { p50: number | null; p95: number | null; p99: number | null };
}
export type SourceLevel = IndexLevel | DocumentLevel;

const isDocument = (l: SourceLevel): l is DocumentLevel => "ttftMs" in l;

/** A level of the index or of a run document as a point on its load's axis; figures it lacks are null. */
export function levelPoint(l: SourceLevel): LevelPoint {
  const base = {
    axis: loadAxis(l.load),
    position: loadPosition(l.load),
    valid: l.valid,
    probeOrder: l.probe?.order ?? null,
  };
  if (isDocument(l)) {
    const schedule = levelSchedule(l);
    return {
      ...base,
      aggregateOutputTokensPerSecond: l.aggregateOutputTokensPerSecond,
      perStreamOutputTokensPerSecondP50: l.perStream.outputTokensPerSecond.p50,
      goodputOutputTokensPerSecond: l.goodputOutputTokensPerSecond ?? null,
      ttftP50Ms: l.ttftMs.p50,
      ttftP95Ms: l.ttftMs.p95,
      ttftP99Ms: l.ttftMs.p99,
      e2eP50Ms: l.e2eMs.p50,
      e2eP95Ms: l.e2eMs.p95,
      e2eP99Ms: l.e2eMs.p99,
      achievedRatePerSecond: schedule?.achievedRatePerSecond ?? null,
      inFlightMean: schedule?.inFlightMean ?? null,
      inFlightMax: schedule?.inFlightMax ?? null,
      scheduleLagP50Ms: schedule?.scheduleLagMs?.p50 ?? null,
      scheduleLagP99Ms: schedule?.scheduleLagMs?.p99 ?? null,
    };
  }
  return {
    ...base,
    aggregateOutputTokensPerSecond: l.aggregateOutputTokensPerSecond,
    perStreamOutputTokensPerSecondP50: l.perStreamOutputTokensPerSecondP50 ?? null,
    goodputOutputTokensPerSecond: l.goodputOutputTokensPerSecond ?? null,
    ttftP50Ms: l.ttftP50Ms ?? null,
    ttftP95Ms: l.ttftP95Ms ?? null,
    ttftP99Ms: l.ttftP99Ms ?? null,
    e2eP50Ms: l.e2eP50Ms ?? null,
    e2eP95Ms: l.e2eP95Ms ?? null,
    e2eP99Ms: l.e2eP99Ms ?? null,
    achievedRatePerSecond: null,
    inFlightMean: null,
    inFlightMax: null,
    scheduleLagP50Ms: null,
    scheduleLagP99Ms: null,
  };
}

/** A run's levels as points, in order along their axis. */
export function levelPoints(levels: readonly SourceLevel[]): LevelPoint[] {
  return levels.map(levelPoint).sort((a, b) => a.position - b.position);
}

/** One target's (or route's) levels, as the charts that overlay several take them. */
export interface LevelSeries {
  targetId: string;
  label: string;
  levels: LevelPoint[];
}

/** A figure a chart may draw of a level: its field, and how a chart titles and describes it. */
export interface Measure {
  figure: LevelFigure;
  /** The chart's title and y axis title when the chart draws this figure alone. */
  title: string;
  /** A legend entry or a panel's title, short. */
  name: string;
  /** A panel's y axis title. */
  axisTitle: string;
  /** In a description's sentence. */
  words: string;
  /** Latency spans orders of magnitude: a log axis where the figure is drawn alone. */
  log?: boolean;
}

export const MEASURES = {
  aggregate: {
    figure: "aggregateOutputTokensPerSecond",
    title: AGGREGATE_TITLE,
    name: "aggregate (all requests)",
    axisTitle: "aggregate tok/s",
    words: "aggregate output tokens per second",
  },
  perStream: {
    figure: "perStreamOutputTokensPerSecondP50",
    title: PER_STREAM_TITLE,
    name: "per-stream (p50, one user)",
    axisTitle: "per-stream tok/s",
    words: "per-stream output tokens per second, median",
  },
  goodput: {
    figure: "goodputOutputTokensPerSecond",
    title: "goodput tok/s (requests meeting the SLO)",
    name: "goodput (requests meeting the SLO)",
    axisTitle: "goodput tok/s",
    words: "goodput, the output tokens per second of requests that each met the SLO",
  },
  ttftP50: {
    figure: "ttftP50Ms",
    title: "TTFT p50 ms",
    name: "time to first token, p50",
    axisTitle: "TTFT p50 ms",
    words: "time to first token p50 in milliseconds",
  },
  ttftP95: {
    figure: "ttftP95Ms",
    title: "TTFT p95 ms (log axis)",
    name: "time to first token, p95",
    axisTitle: "TTFT p95 ms",
    words: "time to first token p95 in milliseconds",
    log: true,
  },
  e2eP50: {
    figure: "e2eP50Ms",
    title: "e2e p50 ms",
    name: "end-to-end, p50",
    axisTitle: "e2e p50 ms",
    words: "end-to-end latency p50 in milliseconds",
  },
} as const satisfies Record<string, Measure>;
export type MeasureKey = keyof typeof MEASURES;

export const PERCENTILES = ["p50", "p95", "p99"] as const;
export type Percentile = (typeof PERCENTILES)[number];

/** What a load axis is, and what the charts drawn against it show. */
export interface AxisEntry {
  title: string;
  scale: { type: "log"; base: number } | { zero: true; nice: false };
  /** The tick labels' d3 format. */
  format: string;
  /** The axis in a few words ("concurrency N", "offered rate"). */
  name: string;
  /** How a description names the axis. */
  against: string;
  /** A position in words, as a point's label ("N=8", "2 req/s"). */
  label: (position: number) => string;
  /** Its figures need the run document (achieved rate, in flight), not only the index's. */
  needsDocument: boolean;
  /** Whether the charts draw the levels a run marked invalid (a closed loop's always have; an open loop's never). */
  drawsInvalid: boolean;
  /** The throughput curves' two figures, and whether they share one y axis (same unit and size) or take one each. */
  throughput: { measures: readonly [MeasureKey, MeasureKey]; sharedY: boolean; legend: string };
  /** The percentiles of the latency chart. */
  percentiles: readonly Percentile[];
}

export const AXES: Record<LoadAxis, AxisEntry> = {
  concurrency: {
    title: CONCURRENCY_TITLE,
    scale: { type: "log", base: 2 },
    format: "d",
    name: "concurrency N",
    against: "against concurrency on a log-2 axis",
    label: (n) => `N=${n}`,
    needsDocument: false,
    drawsInvalid: true,
    // Aggregate rises and per-stream falls, apart by the concurrency factor: an axis each.
    throughput: { measures: ["aggregate", "perStream"], sharedY: false, legend: "output tok/s" },
    percentiles: ["p50", "p95", "p99"],
  },
  rate: {
    title: RATE_TITLE,
    scale: { zero: true, nice: false },
    // An explicit precision: without one, vega sets it from the tick step, and "~g" drew 10 as "1e+1".
    format: ",.6~r",
    name: "offered rate",
    against: "against the offered request rate in requests per second",
    label: (r) => `${r} req/s`,
    needsDocument: true,
    drawsInvalid: false,
    // Goodput is part of aggregate: one axis.
    throughput: { measures: ["aggregate", "goodput"], sharedY: true, legend: "output tok/s" },
    percentiles: ["p50", "p95"],
  },
  speedup: {
    title: SPEEDUP_TITLE,
    scale: { zero: true, nice: false },
    format: ",.6~r",
    name: "trace speedup",
    against: "against the speedup of the replayed trace (x1: as recorded)",
    label: (x) => `x${x}`,
    needsDocument: true,
    drawsInvalid: false,
    // The same traffic coming faster: what it all gets, and what met the SLO.
    throughput: { measures: ["aggregate", "goodput"], sharedY: true, legend: "output tok/s" },
    percentiles: ["p50", "p95", "p99"],
  },
};

/** A load axis as a chart's x encoding: rows carry their position in a field named after the axis, ticks at the measured positions. */
export function loadAxisEncoding(axis: LoadAxis, positions: readonly number[]) {
  const a = AXES[axis];
  return {
    field: axis,
    type: "quantitative" as const,
    title: a.title,
    scale: a.scale,
    axis: { values: [...new Set(positions)].sort((x, y) => x - y), format: a.format },
  };
}
export type AxisEncoding = ReturnType<typeof loadAxisEncoding>;

/** The levels a chart of this axis draws: all, or the valid ones (see `drawsInvalid`). */
export function drawn(axis: LoadAxis, levels: readonly LevelPoint[]): LevelPoint[] {
  return AXES[axis].drawsInvalid ? [...levels] : levels.filter((l) => l.valid);
}
