/**
 * @module The build's chart job: every SVG the pages show, rendered once before Astro runs (vega stays
 * out of the pages), each kind's sections through the registry. One chart at a time (they share one
 * thread), each yielding to the event loop first, so the downloads staged alongside (`stage.ts`) keep
 * the file system busy meanwhile.
 */

import { KIND_NAMES, KINDS, kindsAmong, viewKind, viewsOfKind } from "../kinds/index.ts";
import { modelContext, targetContext } from "../kinds/sections.ts";
import { type LoadAxis, prefillSpec, tradeoffSpec } from "../lib/charts/index.ts";
import { tradeoffTargets } from "../lib/compare.ts";
import { modelGroups } from "../lib/models.ts";
import { prefillPoints } from "../lib/prefill.ts";
import { type SiteData, viewsOf } from "../lib/site-data.ts";
import type { Figure, FigureSection, ModelCharts, SiteIndex, TargetCharts, TargetView } from "../lib/site-index.ts";
import { renderSvg } from "../lib/svg.ts";
import { HISTORY_SECTION, type SectionDef, TRADEOFF_TITLE } from "../lib/target-charts.ts";
import { viewPoints } from "../lib/view-points.ts";

/** Sections' figures rendered to SVG, each section marked with the kind it belongs to (null: every kind's). */
export async function renderSections<C>(
  sections: readonly SectionDef<C>[],
  c: C,
  kind: string | null,
): Promise<FigureSection[]> {
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
    out.push({ id: s.id, heading: s.heading, kind, figures });
  }
  return out;
}

/** The compare page's build-time trade-off chart of the best-ranked targets (the page's other charts draw in the browser). */
export async function compareTradeoff(targets: TargetView[], axis: LoadAxis): Promise<string> {
  const top = tradeoffTargets(targets);
  return renderSvg(
    tradeoffSpec({
      title: TRADEOFF_TITLE,
      axis,
      series: top.map((t) => ({ targetId: t.id, label: t.label, levels: viewPoints(t) })),
    }),
  );
}

/** The prefill curve of one target's views (its scenarios whose kind has a level 1): null unless 2 or more have a valid one. */
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

/** A target view's figures: its kind's sections, then its history. */
export async function targetCharts(view: TargetView): Promise<TargetCharts> {
  const kind = viewKind(view);
  const c = targetContext(view);
  return [
    ...(await renderSections(KINDS[kind].target, c, kind)),
    ...(await renderSections([HISTORY_SECTION], c, null)),
  ];
}

/** Charts per model key, for every model (or those of `only`): each kind its routes are on, that kind's sections. */
export async function modelCharts(
  targets: TargetView[],
  only: ReadonlySet<string> | null = null,
): Promise<Record<string, ModelCharts>> {
  const out: Record<string, ModelCharts> = {};
  const byId = new Map(targets.map((t) => [t.id, t]));
  for (const g of modelGroups(
    targets,
    targets.map((t) => t.id),
  )) {
    if (only && !only.has(g.modelKey)) continue;
    const routes = g.targetIds.map((id) => byId.get(id) as TargetView);
    const sections: FigureSection[] = [];
    for (const kind of KIND_NAMES) {
      const on = viewsOfKind(routes, kind);
      if (on.length > 0)
        sections.push(...(await renderSections(KINDS[kind].model.sections, modelContext(kind, on), kind)));
    }
    out[g.modelKey] = sections;
  }
  return out;
}

/** The figures drawn over many series: each scenario's model pages' and its compare page's trade-off. */
export async function crossSeriesCharts(
  data: Pick<SiteData, "series" | "scenarios">,
  /** The models whose pages are built (an incremental build's); null: every model. */
  models: ReadonlySet<string> | null = null,
  /** False for a build without the pages shared by every target: no compare page, so no trade-off chart. */
  compare = true,
): Promise<Pick<SiteIndex, "modelCharts" | "compareTradeoff">> {
  const charts: SiteIndex["modelCharts"] = {};
  const tradeoffs: SiteIndex["compareTradeoff"] = {};
  for (const s of data.scenarios) {
    const views = viewsOf(data.series, s);
    // Each model's figures of the kinds its routes are on (see `modelCharts`).
    charts[s] = await modelCharts(views, models);
    // The compare page's trade-off chart, where the kind that leads the scenario's compare page draws one.
    const lead = kindsAmong(views)[0];
    if (compare && lead && KINDS[lead].compare.tradeoff)
      tradeoffs[s] = await compareTradeoff(viewsOfKind(views, lead), KINDS[lead].axis);
  }
  return { modelCharts: charts, compareTradeoff: tradeoffs };
}
