/**
 * @module The build's chart job: every SVG the pages show, rendered once before Astro runs. One
 * chart at a time (they share one thread), each yielding to the event loop first, so the downloads
 * staged alongside (`stage.ts`) keep the file system busy meanwhile.
 */

import { type SiteData, viewKey, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import { compareTradeoff, modelCharts, prefillChart, targetCharts } from "../lib/target-charts.ts";

/** The payload's charts. */
export type SiteCharts = Pick<SiteIndex, "charts" | "prefill" | "modelCharts" | "compareTradeoff">;

/** Renders every chart of the site: each series', each target's prefill curve, each model's, the compare page's. */
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
    // An open-loop model's charts are against the offered rate (see `modelCharts`).
    models[s] = await modelCharts(views);
    // One trade-off chart per closed-loop scenario: an open loop's levels are rates, not concurrency.
    const closed = views.filter((t) => !t.openLoop);
    if (closed.length > 0) tradeoffs[s] = await compareTradeoff(closed);
  }
  return { charts, prefill, modelCharts: models, compareTradeoff: tradeoffs };
}
