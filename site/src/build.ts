/**
 * @module Builds the static site from a store: read it through the ports, then stage the downloads
 * (`build/stage.ts`, so the data page can state their sizes) while the charts render
 * (`build/charts.ts`), run Astro (`build/astro.ts`), then move the downloads into place. Writes only under `outDir` and the system temp folder (never
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
import { siteCharts } from "./build/charts.ts";
import { moveInto, stageDownloads } from "./build/stage.ts";
import { methodologyHtml } from "./lib/methodology.ts";
import { loadSiteData } from "./lib/site-data.ts";
import type { SiteIndex } from "./lib/site-index.ts";

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
  const warn = options.warn ?? ((m: string) => console.warn(`warning: ${m}`));
  const siteRoot = options.siteRoot ?? SITE_ROOT;
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
    // Staging is file I/O and charts are CPU: the two overlap. Both settle before either's failure
    // is thrown, so no copy is still writing into the work folder when it is removed.
    const [stagedDone, chartsDone] = await Promise.allSettled([
      stageDownloads(options.store, data, staged),
      siteCharts(data),
    ]);
    if (stagedDone.status === "rejected") throw stagedDone.reason;
    if (chartsDone.status === "rejected") throw chartsDone.reason;
    const { downloads, runBytes } = stagedDone.value;
    const charts = chartsDone.value;
    const payload: SiteIndex = {
      generatedAt: data.generatedAt,
      series: data.series,
      scenarios: data.scenarios,
      ...charts,
      alerts: data.alerts,
      downloads,
      runDocuments: { count: data.allEntries.length, bytes: runBytes },
      subscribeUrl: options.subscribeUrl ?? null,
      methodologyHtml: await methodologyHtml(join(siteRoot, "..", "docs", "methodology.md")),
    };
    const payloadFile = join(work, "site-data.json");
    await writeFile(payloadFile, JSON.stringify(payload));

    const outDir = resolve(options.outDir);
    await rm(outDir, { recursive: true, force: true });
    await runAstro({ siteRoot, work, payloadFile, outDir });
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
