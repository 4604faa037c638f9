/**
 * @module Builds the static site from a store: read it through the ports, then stage the downloads
 * (`build/stage.ts`, so the data page can state their sizes) while the charts render
 * (`build/charts.ts`), run Astro (`build/astro.ts`), then move the downloads into place. Writes only under `outDir` and the system temp folder (never
 * the site's sources), so it runs inside Lambda (`/tmp`).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StandingConfig } from "@kneeboard/core/config";
import type { RunIndex } from "@kneeboard/core/run-index";
import type { Store } from "@kneeboard/core/store";
import { runAstro } from "./build/astro.ts";
import { crossSeriesCharts, prefillChart, targetCharts } from "./build/charts.ts";
import { DownloadStager, moveInto } from "./build/stage.ts";
import { methodologyHtml } from "./lib/methodology.ts";
import { recentView } from "./lib/recent-view.ts";
import { readAlerts, scenarioOrder, type TargetView, targetsData } from "./lib/site-data.ts";
import { type SeriesDetail, type SiteIndex, seriesDetailFile } from "./lib/site-index.ts";

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
  /**
   * The site package's folder (its `src/` holds the pages; the methodology is `../docs/methodology.md`
   * from it). Default: this package's own folder, which a bundle of this file cannot know (the
   * publish Lambda passes `/var/task/site`).
   */
  siteRoot?: string;
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
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    (options.warn ?? ((w: string) => console.warn(`warning: ${w}`)))(m);
  };
  const siteRoot = options.siteRoot ?? SITE_ROOT;
  const generatedAt = options.now ?? new Date().toISOString();
  const work = await mkdtemp(join(tmpdir(), "kneeboard-site-"));
  const staged = join(work, "public");
  const seriesDir = join(work, "series");
  try {
    await mkdir(seriesDir);
    const stager = new DownloadStager(options.store, staged, work);
    // One target at a time: its figures drawn and its detail files written while its downloads are
    // staged (CPU and file I/O overlap), then only its recent view is kept for the pages that list it.
    const series: TargetView[] = [];
    const firstRuns = new Map<string, string>();
    for await (const target of targetsData({ ...options, now: generatedAt, warn })) {
      const [stagedDone, drawnDone] = await Promise.allSettled([
        stager.addTarget(target),
        writeSeriesDetails(target.views, seriesDir),
      ]);
      // Both settle before either's failure is thrown, so nothing is still writing into work when it is removed.
      if (stagedDone.status === "rejected") throw stagedDone.reason;
      if (drawnDone.status === "rejected") throw drawnDone.reason;
      series.push(...target.views.map(recentView));
      for (const e of target.entries)
        if ((firstRuns.get(e.scenario) ?? e.startedAt) >= e.startedAt) firstRuns.set(e.scenario, e.startedAt);
    }
    const scenarios = scenarioOrder([...firstRuns].map(([scenario, startedAt]) => ({ scenario, startedAt })));
    const alerts = await readAlerts(options.store, warn);
    const { downloads, runBytes, runCount } = await stager.finish({ generatedAt, scenarios, series });
    const payload: SiteIndex = {
      generatedAt,
      series,
      scenarios,
      seriesDir,
      charts: {},
      prefill: {},
      ...(await crossSeriesCharts({ series, scenarios })),
      alerts,
      downloads,
      runDocuments: { count: runCount, bytes: runBytes },
      subscribeUrl: options.subscribeUrl ?? null,
      methodologyHtml: await methodologyHtml(join(siteRoot, "..", "docs", "methodology.md")),
    };
    const payloadFile = join(work, "site-data.json");
    await writeFile(payloadFile, JSON.stringify(payload));

    const outDir = resolve(options.outDir);
    await rm(outDir, { recursive: true, force: true });
    await runAstro({ siteRoot, work, payloadFile, outDir });
    for (const entry of await readdir(staged)) await moveInto(join(staged, entry), join(outDir, entry));
    return { outDir, targets: new Set(series.map((v) => v.id)).size, runDocuments: runCount, warnings };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Each of a target's series' detail file (`SeriesDetail`): its whole view, its figures, the target's prefill curve. */
async function writeSeriesDetails(views: TargetView[], dir: string): Promise<void> {
  const prefill = await prefillChart(views);
  for (const view of views) {
    const detail: SeriesDetail = { view, charts: await targetCharts(view), prefill };
    await writeFile(join(dir, seriesDetailFile(view)), JSON.stringify(detail));
  }
}
