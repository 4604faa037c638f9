/**
 * @module What a page section is: its figures and the tables of their numbers as one unit
 * (`SectionDef`), so a figure never shows without its table nor a table without its figure. The
 * sections of each load kind live in its module (`src/kinds/`); this file holds what they share: the
 * figure helpers, the history every target page ends with, and the join of the figures the build
 * rendered (`build/charts.ts`, which alone loads vega) with their tables. Nothing here branches on a kind.
 */
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
  throughputCurvesSpec,
} from "./charts/index.ts";
import type { Figure, FigureSection, TargetView } from "./site-index.ts";
import type { Table } from "./table.ts";
import { viewPoints } from "./view-points.ts";

export const finite = (v: number | null | undefined) => v !== null && v !== undefined && Number.isFinite(v);
/** A valid level with one of `figures`: what a chart of the latest run needs to be worth drawing. */
export const drawable = (levels: readonly LevelPoint[], figures: readonly LevelFigure[]) =>
  levels.some((l) => l.valid && figures.some((f) => finite(l[f])));
/** A valid level with every one of `figures`. */
export const drawableAll = (levels: readonly LevelPoint[], figures: readonly LevelFigure[]) =>
  levels.some((l) => l.valid && figures.every((f) => finite(l[f])));
export const figuresOf = (keys: readonly MeasureKey[]) => keys.map((k) => MEASURES[k].figure);
const latencyFigures = (axis: LoadAxis): LevelFigure[] =>
  AXES[axis].percentiles.flatMap((p) => [`ttft${p.toUpperCase()}Ms`, `e2e${p.toUpperCase()}Ms`] as LevelFigure[]);

/** What a target page's sections are drawn from: one (target, scenario), on its kind's axis. */
export interface TargetContext {
  view: TargetView;
  axis: LoadAxis;
  /** The latest run's levels (`viewPoints`). */
  levels: LevelPoint[];
}

/** What a model page's sections are drawn from: the model's routes of one kind, each latest run's valid levels (no route with none). */
export interface ModelContext {
  axis: LoadAxis;
  routes: TargetView[];
  series: LevelSeries[];
}

/** A figure as data: its words, and its spec or null where it would draw nothing. */
export interface FigureDef<C> {
  id: string;
  title: string;
  caption: string | ((c: C) => string);
  empty: string | ((c: C) => string);
  spec: (c: C) => TopLevelSpec | null;
}

/**
 * A page section as one unit: its heading, its figures (rendered at build time) and the tables of
 * their numbers (made when the page is), looked up together by the section's id.
 */
export interface SectionDef<C> {
  id: string;
  heading: string | null;
  figures: FigureDef<C>[];
  tables: (c: C) => Table[];
}

/** A section whose figures need no table beside them (their numbers are in another section's). */
export const noTables = (): Table[] => [];

export const TRADEOFF_TITLE = "what each user gets against what all get";

/** The latest run's two throughputs against its axis (`AxisEntry.throughput`), with a knee where `knee` gives one. */
export function curvesFigure(
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
export function latencyFigure(o: Omit<FigureDef<TargetContext>, "spec">): FigureDef<TargetContext> {
  return {
    ...o,
    spec: (c) =>
      drawable(c.levels, latencyFigures(c.axis))
        ? latencySpec({ title: o.title, axis: c.axis, levels: c.levels })
        : null,
  };
}

/** A model page's curves of its routes overlaid: one chart of one measure, or panels of several. */
export function overlayFigure(
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
export const withLeftOut = (caption: string, leftOut: (routes: TargetView[]) => string | null) => (c: ModelContext) => {
  const out = leftOut(c.routes);
  return out ? `${caption} ${out}` : caption;
};

/** Every target page's history, whatever its kind (its table is the page's runs table). */
export const HISTORY_SECTION: SectionDef<TargetContext> = {
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
  tables: noTables,
};

/**
 * Built sections joined with their definitions: each built section of `kind` gets the tables of the
 * definition of the same id. A built section no definition names throws: the page would otherwise
 * show a figure without its numbers.
 */
export function joinSections<C>(
  built: readonly FigureSection[],
  defs: readonly SectionDef<C>[],
  kind: string | null,
  c: C,
): { id: string; heading: string | null; figures: Figure[]; tables: Table[] }[] {
  return built
    .filter((s) => s.kind === kind)
    .map((s) => {
      const def = defs.find((d) => d.id === s.id);
      if (!def) throw new Error(`the site index has a section "${s.id}" that ${kind ?? "no"} kind defines`);
      return { id: s.id, heading: s.heading, figures: s.figures, tables: def.tables(c) };
    });
}

/**
 * Each route's latest valid levels (as a target page draws only valid levels' charts), and no route
 * whose latest run has none; the captions say what is left out.
 */
export const validSeries = (routes: TargetView[]): LevelSeries[] =>
  routes
    .map((t) => ({ targetId: t.id, label: t.label, levels: viewPoints(t).filter((l) => l.valid) }))
    .filter((s) => s.levels.length > 0);

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
