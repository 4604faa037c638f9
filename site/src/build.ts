/**
 * @module Builds the static site from a store, in two jobs: read it through the ports and stage the
 * downloads (`build/stage.ts`, so the data page can state their sizes), run Astro (`build/astro.ts`),
 * then move the downloads into place. Writes only under `outDir` and the system temp folder (never
 * the site's sources), so it runs inside Lambda (`/tmp`).
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StandingConfig } from "@kneeboard/core/config";
import type { RunIndex } from "@kneeboard/core/run-index";
import type { Store } from "@kneeboard/core/store";
import { runAstro } from "./build/astro.ts";
import { moveInto, stageDownloads } from "./build/stage.ts";
import { methodologyHtml } from "./lib/methodology.ts";
import type { SitePayload } from "./lib/payload.ts";
import { loadSiteData, viewKey, viewsOf } from "./lib/site-data.ts";
import { compareTradeoff, modelCharts, prefillChart, targetCharts } from "./lib/target-charts.ts";

const SITE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Where the site is built by default: `dist` of the site package, whatever the working directory. */
export const DEFAULT_OUT_DIR = join(SITE_ROOT, "dist");

export interface BuildSiteOptions {
  store: Store;
  index: RunIndex;
  outDir: string;
  /** The build's time (pages say when they were generated). */
  now?: string;
  /** Which runs the published figures are taken over (the config's `standing`; default 72 hours, 24 runs). */
  standing?: StandingConfig;
  /** Where the subscribe form posts (the deployed subscribe function URL); the form is disabled without it. */
  subscribeUrl?: string;
  warn?: (message: string) => void;
}

export interface BuildSiteResult {
  outDir: string;
  targets: number;
  runDocuments: number;
  warnings: string[];
}

/** Builds the whole site into outDir (replacing what was there). */
export async function buildSite(options: BuildSiteOptions): Promise<BuildSiteResult> {
  const warn = options.warn ?? ((m: string) => console.warn(`warning: ${m}`));
  const data = await loadSiteData({
    store: options.store,
    index: options.index,
    now: options.now,
    standing: options.standing,
    warn,
  });
  const work = await mkdtemp(join(tmpdir(), "kneeboard-site-"));
  const staged = join(work, "public");
  try {
    const { downloads, runBytes } = await stageDownloads(options.store, data, staged);
    // The front pages rank the first scenario; every scenario has its own pages.
    const first = viewsOf(data.series, data.scenarios[0] ?? "chat");
    const prefill: Record<string, string> = {};
    for (const id of new Set(data.series.map((v) => v.id))) {
      const chart = await prefillChart(data.series.filter((v) => v.id === id));
      if (chart) prefill[id] = chart;
    }
    const payload: SitePayload = {
      generatedAt: data.generatedAt,
      targets: first,
      series: data.series,
      scenarios: data.scenarios,
      charts: Object.fromEntries(
        await Promise.all(data.series.map(async (t) => [viewKey(t), await targetCharts(t)] as const)),
      ),
      prefill,
      modelCharts: Object.fromEntries(
        // An open-loop model's charts are against the offered rate (see `modelCharts`).
        await Promise.all(data.scenarios.map(async (s) => [s, await modelCharts(viewsOf(data.series, s))] as const)),
      ),
      compareTradeoff: await compareTradeoff(first.filter((t) => !t.openLoop)),
      alerts: data.alerts,
      downloads,
      runDocuments: { count: data.allEntries.length, bytes: runBytes },
      subscribeUrl: options.subscribeUrl ?? null,
      methodologyHtml: await methodologyHtml(),
    };
    const payloadFile = join(work, "site-data.json");
    await writeFile(payloadFile, JSON.stringify(payload));

    const outDir = resolve(options.outDir);
    await rm(outDir, { recursive: true, force: true });
    await runAstro({ siteRoot: SITE_ROOT, work, payloadFile, outDir });
    for (const entry of await readdir(staged)) await moveInto(join(staged, entry), join(outDir, entry));
    return {
      outDir,
      targets: new Set(data.series.map((v) => v.id)).size,
      runDocuments: data.allEntries.length,
      warnings: data.warnings,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
