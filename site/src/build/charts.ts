/**
 * @module The build's chart job: every SVG the pages show, rendered once before Astro runs. One
 * chart at a time (they share one thread), each yielding to the event loop first, so the downloads
 * staged alongside (`stage.ts`) keep the file system busy meanwhile.
 */

import { type SiteData, viewAxis, viewKey, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { compareTradeoff, modelCharts, prefillChart, targetCharts } from "../lib/target-charts.ts";

/** The site index's figures and charts. */
export type SiteCharts = Pick<SiteIndex, "charts" | "prefill" | "modelCharts" | "compareTradeoff">;

/** Renders every figure of the site: each series' sections, each target's prefill curve, each model's, the compare page's trade-off. */
export async function siteCharts(data: SiteData): Promise<SiteCharts> {
  const prefill: SiteIndex["prefill"] = {};
  for (const id of new Set(data.series.map((v) => v.id))) {
    const chart = await prefillChart(data.series.filter((v) => v.id === id));
    if (chart) prefill[id] = chart;
  }
  const charts: SiteIndex["charts"] = {};
  for (const view of data.series) charts[viewKey(view)] = await targetCharts(view);
  const models: SiteIndex["modelCharts"] = {};
  const tradeoffs: SiteIndex["compareTradeoff"] = {};
  for (const s of data.scenarios) {
    const views = viewsOf(data.series, s);
    // Each model's figures on the load axes of its routes (see `modelCharts`).
    models[s] = await modelCharts(views);
    // One trade-off chart per scenario with views on the concurrency axis: what each user gets at each N.
    const closed = views.filter((t) => viewAxis(t) === "concurrency");
    if (closed.length > 0) tradeoffs[s] = await compareTradeoff(closed);
  }
  return { charts, prefill, modelCharts: models, compareTradeoff: tradeoffs };
}
