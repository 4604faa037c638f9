/**
 * @module The build-time SVG figures of the target and model pages, rendered before Astro runs (vega
 * stays out of the page bundle). What a page of each load axis shows is data: `TARGET_SECTIONS` and
 * `MODEL_SECTIONS` list, per axis, its sections and their figures (id, title, caption, the sentence
 * said instead when there is nothing to draw, and the spec). The specs are the same for every axis
 * (`charts/levels.ts`); a new load kind adds its entries here and in `charts/axis.ts`.
 */
import { loadWords } from "@kneeboard/core/run";
import type { Estimate, Standing } from "@kneeboard/core/standing";
import type { TopLevelSpec } from "vega-lite";
import {
  AXES,
  type BandPoint,
  type HistoryBands,
  historySpec,
  type LevelFigure,
  type LevelPoint,
  type LevelSeries,
  type LoadAxis,
  latencySpec,
  MEASURES,
  type MeasureKey,
  overlaySpec,
  prefillSpec,
  standingCurvesSpec,
  type TurnPoint,
  throughputCurvesSpec,
  tradeoffSpec,
  turnsSpec,
} from "./charts/index.ts";
import { tradeoffTargets } from "./compare.ts";
import { curvesLeftOut, modelGroups } from "./models.ts";
import { prefillPoints, ratesLeftOut } from "./open-loop.ts";
import { viewAxis } from "./site-data.ts";
import type { Figure, FigureSection, ModelCharts, TargetCharts, TargetView } from "./site-index.ts";
import { renderSvg } from "./svg.ts";
import { viewPoints } from "./view-points.ts";

const finite = (v: number | null | undefined) => v !== null && v !== undefined && Number.isFinite(v);
/** A valid level with one of `figures`: what a chart of the latest run needs to be worth drawing. */
const drawable = (levels: readonly LevelPoint[], figures: readonly LevelFigure[]) =>
  levels.some((l) => l.valid && figures.some((f) => finite(l[f])));
/** A valid level with every one of `figures`. */
const drawableAll = (levels: readonly LevelPoint[], figures: readonly LevelFigure[]) =>
  levels.some((l) => l.valid && figures.every((f) => finite(l[f])));
const figuresOf = (keys: readonly MeasureKey[]) => keys.map((k) => MEASURES[k].figure);
const latencyFigures = (axis: LoadAxis): LevelFigure[] =>
  AXES[axis].percentiles.flatMap((p) => [`ttft${p.toUpperCase()}Ms`, `e2e${p.toUpperCase()}Ms`] as LevelFigure[]);

/** What a target figure is drawn from. */
interface TargetContext {
  view: TargetView;
  axis: LoadAxis;
  /** The latest run's levels. */
  levels: LevelPoint[];
}

/** A figure as data: its words, and its spec or null where it would draw nothing. */
interface FigureDef<C> {
  id: string;
  title: string;
  caption: string | ((c: C) => string);
  empty: string | ((c: C) => string);
  spec: (c: C) => TopLevelSpec | null;
}
interface SectionDef<C> {
  id: string;
  heading: string | null;
  figures: FigureDef<C>[];
}

const TRADEOFF_TITLE = "what each user gets against what all get";

/** The latest run's two throughputs against its axis (`AxisEntry.throughput`), with a knee where `knee` gives one. */
function curvesFigure(
  o: Omit<FigureDef<TargetContext>, "spec">,
  knee: (v: TargetView) => number | null,
): FigureDef<TargetContext> {
  return {
    ...o,
    spec: (c) =>
      drawable(c.levels, figuresOf(AXES[c.axis].throughput.measures))
        ? throughputCurvesSpec({ title: o.title, axis: c.axis, levels: c.levels, knee: knee(c.view) })
        : null,
  };
}

/** The latest run's TTFT and end-to-end percentiles (`AxisEntry.percentiles`) against its axis. */
function latencyFigure(o: Omit<FigureDef<TargetContext>, "spec">): FigureDef<TargetContext> {
  return {
    ...o,
    spec: (c) =>
      drawable(c.levels, latencyFigures(c.axis))
        ? latencySpec({ title: o.title, axis: c.axis, levels: c.levels })
        : null,
  };
}

const noValidLevel = "the latest run has no valid level";

/** A target page's sections of figures of its latest run and standing, per load axis. */
const TARGET_SECTIONS: Record<LoadAxis, SectionDef<TargetContext>[]> = {
  concurrency: [
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
    },
  ],
  rate: [
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
    },
  ],
  speedup: [
    {
      id: "speedup",
      heading: "The trace replayed faster, latest run",
      figures: [
        latencyFigure({
          id: "speedup-latency",
          title: "latency against speedup",
          caption:
            "TTFT and end-to-end latency p50 (circles, solid), p95 (squares, dashed) and p99 (triangles, dotted), in ms on a log axis, against the speedup of the replayed trace (x1: as recorded), one panel above the other. Invalid speedups are left out.",
          empty: "Nothing to draw: the latest run has no valid speedup; its latencies are in the tables below.",
        }),
        curvesFigure(
          {
            id: "speedup-throughput",
            title: "aggregate and goodput tok/s against speedup",
            caption:
              "Aggregate output tok/s (circles) and goodput, the tok/s of requests that each met the SLO (squares), against the speedup of the replayed trace; y axis from zero. Invalid speedups are left out.",
            empty: "Nothing to draw: the latest run has no valid speedup; its figures are in the tables below.",
          },
          () => null,
        ),
      ],
    },
  ],
};

/** A conversation's TTFT and cached share by turn, per level of the latest run: what its prompt cache does. */
export function turnPoints(view: TargetView): TurnPoint[] {
  return view.latest.levels.flatMap((l) =>
    l.valid && l.conversation
      ? l.conversation.byTurn.map((t) => ({
          level: loadWords(l.load),
          turn: t.turn,
          ttftP50Ms: t.ttftP50Ms,
          cachedShare: t.cachedPromptTokenShare,
        }))
      : [],
  );
}

/** A conversation scenario's section (any axis whose levels carry conversations): its figures by turn. */
const TURNS_SECTION: SectionDef<TargetContext> = {
  id: "turns",
  heading: "Turn by turn: the prompt cache",
  figures: [
    {
      id: "turns",
      title: "TTFT and cached share by turn",
      caption:
        "Each turn re-sends the conversation so far. TTFT p50 (top) and the share of prompt tokens the route reported cached (bottom) by turn, one line per level of the latest run, both from zero: with a prompt cache the later turns' TTFT stays near the first's; without one it grows with the history. What the levels say of the cache is in the table below.",
      empty: "Nothing to draw: the latest run has no valid conversation level; its figures are in the table below.",
      spec: ({ view }) => {
        const points = turnPoints(view);
        return points.some((p) => finite(p.ttftP50Ms))
          ? turnsSpec({ title: "TTFT and cached share by turn", points })
          : null;
      },
    },
  ],
};

/** True when the view's latest run held conversations (its levels carry figures by turn). */
export const hasConversation = (view: TargetView) => view.latest.levels.some((l) => l.conversation !== null);

/** Every target page's history, whatever its axis. */
const HISTORY_SECTION: SectionDef<TargetContext> = {
  id: "history",
  heading: "History",
  figures: [
    {
      id: "history",
      title: "history",
      caption:
        "Peak aggregate and single-stream tok/s of every run: one point per run (a cross when partial or invalid) joined by straight lines, on axes from zero; each run is listed below.",
      empty: ({ view }) =>
        view.history.length > 1
          ? "Nothing to draw: no run has a valid single-stream or peak figure yet; every run is listed below."
          : "Nothing to draw: one run so far; the history chart starts with the second.",
      spec: ({ view }) =>
        view.history.length > 1 &&
        view.history.some(
          (h) => finite(h.peakAggregateOutputTokensPerSecond) || finite(h.singleStreamOutputTokensPerSecond),
        )
          ? historySpec({ title: "history", points: view.history, bands: standingBands(view.standing) })
          : null,
    },
  ],
};

async function renderSections<C>(sections: SectionDef<C>[], c: C, axis: LoadAxis | null): Promise<FigureSection[]> {
  const out: FigureSection[] = [];
  for (const s of sections) {
    const figures: Figure[] = [];
    for (const f of s.figures) {
      const spec = f.spec(c);
      figures.push({
        id: f.id,
        title: f.title,
        svg: spec ? await renderSvg(spec) : null,
        caption: typeof f.caption === "string" ? f.caption : f.caption(c),
        empty: typeof f.empty === "string" ? f.empty : f.empty(c),
      });
    }
    out.push({ id: s.id, heading: s.heading, axis, figures });
  }
  return out;
}

/** A target view's figures: its axis's sections (`TARGET_SECTIONS`), then its history. */
export async function targetCharts(view: TargetView): Promise<TargetCharts> {
  const axis = viewAxis(view);
  const c: TargetContext = { view, axis, levels: viewPoints(view) };
  return [
    ...(hasConversation(view) ? await renderSections([TURNS_SECTION], c, null) : []),
    ...(await renderSections(TARGET_SECTIONS[axis], c, axis)),
    ...(await renderSections([HISTORY_SECTION], c, null)),
  ];
}

/** What a model figure is drawn from: its routes on one axis, each latest run's valid levels (no route with none). */
interface ModelContext {
  axis: LoadAxis;
  routes: TargetView[];
  series: LevelSeries[];
}

/** A model page's curves of its routes overlaid: one chart of one measure, or panels of several. */
function overlayFigure(
  o: Omit<FigureDef<ModelContext>, "spec"> & { measures: MeasureKey[]; seriesName: "target" | "route" },
): FigureDef<ModelContext> {
  const { measures, seriesName, ...words } = o;
  return {
    ...words,
    spec: (c) =>
      c.series.some((s) => drawable(s.levels, figuresOf(measures)))
        ? overlaySpec({
            axis: c.axis,
            series: c.series,
            measures,
            seriesName,
            ...(measures.length > 1 ? { title: o.title } : {}),
          })
        : null,
  };
}

/** A caption with what the charts leave out as invalid, where they leave something out. */
const withLeftOut = (caption: string, leftOut: (routes: TargetView[]) => string | null) => (c: ModelContext) => {
  const out = leftOut(c.routes);
  return out ? `${caption} ${out}` : caption;
};

const NO_VALID_LEVEL = "Nothing to draw: no route's latest run has a valid level; the tables below have their figures.";
const NO_VALID_RATE = "Nothing to draw: no route's latest run has a valid rate; the table below has their figures.";

/** A model page's sections of figures of its routes on each load axis. */
const MODEL_SECTIONS: Record<LoadAxis, SectionDef<ModelContext>[]> = {
  concurrency: [
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
    },
  ],
  rate: [
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
    },
  ],
  speedup: [
    {
      id: "model-speedup",
      heading: "The trace replayed faster, latest runs",
      figures: [
        overlayFigure({
          id: "model-speedup-latency",
          title: "latency against speedup",
          measures: ["ttftP95", "e2eP50"],
          seriesName: "route",
          caption:
            "Time to first token p95 (top) and end-to-end latency p50 (bottom) of each route, in ms, against the speedup of the replayed trace (latest runs); each route has its own colour and marker shape. Invalid speedups are left out.",
          empty: "Nothing to draw: no route's latest run has a valid speedup; the table below has their figures.",
        }),
      ],
    },
  ],
};

/**
 * Each route's latest valid levels (as a target page draws only valid levels' charts), and no route
 * whose latest run has none; the captions say what is left out.
 */
const validSeries = (routes: TargetView[]): LevelSeries[] =>
  routes
    .map((t) => ({ targetId: t.id, label: t.label, levels: viewPoints(t).filter((l) => l.valid) }))
    .filter((s) => s.levels.length > 0);

/** Charts per model key, for every model (one route or several): each axis its routes are on, its sections (`MODEL_SECTIONS`). */
export async function modelCharts(targets: TargetView[]): Promise<Record<string, ModelCharts>> {
  const byId = new Map(targets.map((t) => [t.id, t]));
  const out: Record<string, ModelCharts> = {};
  for (const g of modelGroups(
    targets,
    targets.map((t) => t.id),
  )) {
    const routes = g.targetIds.map((id) => byId.get(id) as TargetView);
    const sections: FigureSection[] = [];
    for (const axis of Object.keys(MODEL_SECTIONS) as LoadAxis[]) {
      const on = routes.filter((t) => viewAxis(t) === axis);
      if (on.length === 0) continue;
      sections.push(
        ...(await renderSections(MODEL_SECTIONS[axis], { axis, routes: on, series: validSeries(on) }, axis)),
      );
    }
    out[g.modelKey] = sections;
  }
  return out;
}

/** The compare page's build-time trade-off chart of the best-ranked targets (the page's other charts draw in the browser). */
export async function compareTradeoff(targets: TargetView[]): Promise<string> {
  const top = tradeoffTargets(targets);
  return renderSvg(
    tradeoffSpec({
      title: TRADEOFF_TITLE,
      axis: top[0] ? viewAxis(top[0]) : "concurrency",
      series: top.map((t) => ({ targetId: t.id, label: t.label, levels: viewPoints(t) })),
    }),
  );
}

/** The prefill curve of one target's views (its scenarios): null unless 2 or more closed-loop scenarios have a valid level 1. */
export async function prefillChart(views: TargetView[]): Promise<Figure | null> {
  const points = prefillPoints(views);
  const title = "time to first token against prompt length";
  return points.length >= 2
    ? {
        id: "prefill",
        title,
        svg: await renderSvg(prefillSpec({ title, points })),
        caption:
          "Time to first token p50 with one request alone (level 1), against the prompt's tokens, one point per scenario of this target (latest run of each); both axes from zero.",
        empty: "Nothing to draw: fewer than two scenarios of this target have a valid level 1.",
      }
    : null;
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
