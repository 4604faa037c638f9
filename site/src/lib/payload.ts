/** @module The build's hand-over to the Astro pages: one JSON file named by an environment variable. */
import { readFileSync } from "node:fs";
import type { Alert } from "@kneeboard/core/alerts";
import { type TargetView, viewsOf } from "./site-data.ts";
import type { ModelCharts, TargetCharts } from "./target-charts.ts";

export const SITE_DATA_ENV = "KNEEBOARD_SITE_DATA";

/** A file under `/data/` and what it holds. */
export interface Download {
  path: string;
  holds: string;
  bytes: number;
}

export interface SitePayload {
  generatedAt: string;
  /** The views of the first scenario (`scenarios[0]`): what the front pages rank. */
  targets: TargetView[];
  /** Every (target, scenario). */
  series: TargetView[];
  /** Every scenario with runs, in the site's order (`chat` first when present). */
  scenarios: string[];
  /** SVG charts per series key (`seriesKey`: the target id for chat, `<id>/<scenario>` else). */
  charts: Record<string, TargetCharts>;
  /** The prefill curve per target id, where it has one. */
  prefill: Record<string, string>;
  /** SVG charts per scenario, then per model key. */
  modelCharts: Record<string, Record<string, ModelCharts>>;
  /** The compare pages' trade-off chart per closed-loop scenario (of at most `COMPARE_TRADEOFF_TARGETS` targets). */
  compareTradeoff: Record<string, string>;
  alerts: Alert[];
  downloads: Download[];
  runDocuments: { count: number; bytes: number };
  subscribeUrl: string | null;
  /** The methodology page's body: docs/methodology.md rendered to HTML. */
  methodologyHtml: string;
}

/**
 * What the build writes: the payload less `targets`, which the reader takes from `series` (written
 * out, the first scenario's views would repeat a third of it).
 */
export type SitePayloadFile = Omit<SitePayload, "targets">;

let cached: { file: string; payload: SitePayload } | null = null;

/** The payload of the build in progress (read once per build). */
export function sitePayload(): SitePayload {
  const file = process.env[SITE_DATA_ENV];
  if (!file)
    throw new Error(`${SITE_DATA_ENV} is not set: build the site with \`kneeboard site\`, not \`astro build\``);
  if (cached?.file !== file) {
    const written = JSON.parse(readFileSync(file, "utf8")) as SitePayloadFile;
    const targets = viewsOf(written.series, written.scenarios[0] ?? "chat");
    cached = { file, payload: { ...written, targets } };
  }
  return cached.payload;
}
