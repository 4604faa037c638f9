/**
 * @module The site index: everything the pages are built from, written once by the build (`build.ts`)
 * and read back here through one schema, so a page never sees a shape the build did not promise.
 * Pages (`src/pages/`) read it and hand each component its part; components and layouts never do.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Alert } from "@kneeboard/core/alerts";
import { RunDocumentV4 } from "@kneeboard/core/run";
import { HistoryPoint, RunIndexEntry, seriesKey } from "@kneeboard/core/run-index";
import { SameModel } from "@kneeboard/core/same-model";
import { Standing } from "@kneeboard/core/standing";
import { z } from "zod";
import { ToolCallsView } from "./tool-calls.ts";

export const SITE_DATA_ENV = "KNEEBOARD_SITE_DATA";

/** One run in a target's history: the headline figures the history chart and the trend need (the run index's). */
export { HistoryPoint };

/** A run document without its samples: what the target page shows of the latest run. */
export const RunDetails = RunDocumentV4.omit({ samples: true }).extend({ key: z.string() });
export type RunDetails = z.infer<typeof RunDetails>;

/** One (target, scenario): its runs, latest figures and standing. */
export const TargetView = z.object({
  id: z.string(),
  /** The scenario its runs swept. */
  scenario: z.string(),
  label: z.string(),
  model: z.string(),
  simulated: z.boolean(),
  /** The newest run, whatever its state: the leaderboard row says when it is partial or invalid. */
  latest: RunIndexEntry,
  /** The newest run whose document could be read; null when none could. */
  details: RunDetails.nullable(),
  /** Every run, oldest first. */
  history: z.array(HistoryPoint),
  /** The figures the site ranks by: medians with intervals over the standing window. */
  standing: Standing,
  /** Prompt tokens of the latest readable run: the median of its ok samples', else `workload.promptTokens`; null when neither. */
  promptTokens: z.number().nullable(),
  /**
   * Whether the target serves the same model as its model's reference route: the verdict on its
   * newest judged canary, in any scenario (the canary tests the route, not the workload); null before one.
   */
  sameModel: SameModel.nullable(),
  /**
   * The route's tool calls: its newest tool-call run in any scenario (the phase tests the route, not
   * the workload), its shares and the verdict against the reference; null before one (and in site
   * indexes written before tool calls).
   */
  toolCalls: ToolCallsView.nullable().default(null),
});
export type TargetView = z.infer<typeof TargetView>;

/** A file under `/data/` and what it holds. */
export const Download = z.object({ path: z.string(), holds: z.string(), bytes: z.number().int().nonnegative() });
export type Download = z.infer<typeof Download>;

/**
 * One chart of a page: its SVG, or null where it would have nothing to draw (no empty axes anywhere),
 * and then `empty`, the sentence the page says instead.
 */
export const Figure = z.object({
  /** The figure element's id. */
  id: z.string(),
  title: z.string(),
  svg: z.string().nullable(),
  caption: z.string(),
  empty: z.string(),
});
export type Figure = z.infer<typeof Figure>;

/**
 * Figures under one heading (none where the page needs none), with the load kind whose section they are
 * (`src/kinds/index.ts`; null for what every kind's page has, the history).
 */
export const FigureSection = z.object({
  id: z.string(),
  heading: z.string().nullable(),
  kind: z.string().nullable(),
  figures: z.array(Figure),
});
export type FigureSection = z.infer<typeof FigureSection>;

/** A target page's figures, section by section in the page's order (see `target-charts.ts`). */
export const TargetCharts = z.array(FigureSection);
export type TargetCharts = z.infer<typeof TargetCharts>;

/** A model page's figures: the sections of each load kind its routes are on (see `src/kinds/`). */
export const ModelCharts = z.array(FigureSection);
export type ModelCharts = z.infer<typeof ModelCharts>;

/**
 * What one target page needs beyond the site index: its series' view with every run of its history,
 * its figures and its target's prefill curve. The build writes one file of it per series (`seriesDir`),
 * so the pages read one series at a time, not every series' history at once.
 */
export const SeriesDetail = z.object({ view: TargetView, charts: TargetCharts, prefill: Figure.nullable() });
export type SeriesDetail = z.infer<typeof SeriesDetail>;

/** What the build writes for the pages. */
export const SiteIndex = z.object({
  generatedAt: z.string(),
  /**
   * Every (target, scenario), by target id then scenario. Written by the build, each view's history
   * holds its recent runs only (`recentView`); a target page reads its own in full (`seriesDetail`).
   */
  series: z.array(TargetView),
  /**
   * Where the build wrote `series` instead, one view a line (the index's bulk, read a line at a time
   * so its text and its parsed views are never all in memory twice); null: `series` holds them.
   */
  seriesFile: z.string().nullable().default(null),
  /** Every scenario with runs, in the site's order (`chat` first when present): `/` ranks the first. */
  scenarios: z.array(z.string()),
  /**
   * An incremental build's pages: only these targets' and models' pages are built (every other page
   * is built whole); null: every page.
   */
  only: z
    .object({ targetIds: z.array(z.string()), modelKeys: z.array(z.string()) })
    .nullable()
    .default(null),
  /** The folder of the series' detail files (`SeriesDetail`, named by `seriesDetailFile`); null: `charts` and `prefill` below hold them. */
  seriesDir: z.string().nullable().default(null),
  /** Figures per series key (`seriesKey`: the target id for chat, `<id>/<scenario>` else), when there is no `seriesDir`. */
  charts: z.record(z.string(), TargetCharts).default({}),
  /** The prefill curve per target id, where it has one, when there is no `seriesDir`. */
  prefill: z.record(z.string(), Figure).default({}),
  /** Figures per scenario, then per model key. */
  modelCharts: z.record(z.string(), z.record(z.string(), ModelCharts)),
  /** The compare pages' trade-off chart per scenario whose leading kind draws one. */
  compareTradeoff: z.record(z.string(), z.string()),
  alerts: z.array(Alert),
  downloads: z.array(Download),
  /** Every model's key: each has its own `data/models/<modelKey>/index.json` and `runs.csv`. */
  modelKeys: z.array(z.string()).default([]),
  runDocuments: z.object({ count: z.number().int().nonnegative(), bytes: z.number().nonnegative() }),
  subscribeUrl: z.string().nullable(),
  /** The methodology page's body: docs/methodology.md rendered to HTML. */
  methodologyHtml: z.string(),
});
export type SiteIndex = z.infer<typeof SiteIndex>;

let cached: { file: string; index: SiteIndex } | null = null;

/** Parses a written site index; a shape the pages do not expect throws, naming where (at most 5 places). */
export function parseSiteIndex(json: unknown, file = "site index"): SiteIndex {
  const parsed = SiteIndex.safeParse(json);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  throw new Error(`${file} does not match the site index schema: ${where}`);
}

/** The file name of a series' detail in `seriesDir`: its series key, made one safe path segment. */
export function seriesDetailFile(view: Pick<TargetView, "id" | "scenario">): string {
  return `${encodeURIComponent(seriesKey({ targetId: view.id, scenario: view.scenario }))}.json`;
}

/** One series' detail (`SeriesDetail`): read from its own file where the build wrote one, else from the index itself. */
export function seriesDetail(index: SiteIndex, view: TargetView): SeriesDetail {
  if (index.seriesDir === null)
    return {
      view,
      charts: index.charts[seriesKey({ targetId: view.id, scenario: view.scenario })] ?? [],
      prefill: index.prefill[view.id] ?? null,
    };
  const file = join(index.seriesDir, seriesDetailFile(view));
  const parsed = SeriesDetail.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} does not match the series detail schema: ${parsed.error.message}`);
  return parsed.data;
}

/** The site index of the build in progress, read and checked once per build. Pages only. */
export function siteIndex(): SiteIndex {
  const file = process.env[SITE_DATA_ENV];
  if (!file)
    throw new Error(`${SITE_DATA_ENV} is not set: build the site with \`kneeboard site\`, not \`astro build\``);
  if (cached?.file !== file) {
    const index = parseSiteIndex(JSON.parse(readFileSync(file, "utf8")), file);
    if (index.seriesFile !== null) index.series = readSeriesFile(index.seriesFile);
    cached = { file, index };
  }
  return cached.index;
}

/** The views of a series file, one JSON view a line, each checked; a line the pages do not expect throws, naming it. */
function readSeriesFile(file: string): TargetView[] {
  const text = readFileSync(file, "utf8");
  const views: TargetView[] = [];
  for (let start = 0, line = 1; start < text.length; line++) {
    const end = text.indexOf("\n", start);
    const json = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    if (json === "") continue;
    const parsed = TargetView.safeParse(JSON.parse(json));
    if (!parsed.success)
      throw new Error(`${file}:${line} does not match the site index's view: ${parsed.error.issues[0]?.message}`);
    views.push(parsed.data);
  }
  return views;
}
