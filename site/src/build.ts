/**
 * @module Builds the static site from a store, one target at a time so memory holds one target's
 * history, not every target's: each target's index entries are read through the ports, its figures
 * drawn and its series' detail files written (`build/charts.ts`; a target page reads its own) while its
 * downloads are staged (`build/stage.ts`, so the data page can state their sizes); only its recent
 * views are kept for the pages that list targets. Then Astro runs (`build/astro.ts`) and the
 * downloads move into place. An incremental build (`only`) draws and renders only some targets'
 * pages. Writes only under `outDir` and the system temp folder (never the site's sources), so it runs
 * inside Lambda (`/tmp`).
 */
import { once } from "node:events";
import { createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { finished } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import type { StandingConfig } from "@kneeboard/core/config";
import { modelKeyOf } from "@kneeboard/core/config";
import type { RunIndex, RunIndexEntry, SeriesSummary } from "@kneeboard/core/run-index";
import type { Store } from "@kneeboard/core/store";
import { runAstro } from "./build/astro.ts";
import { crossSeriesCharts, prefillChart, targetCharts } from "./build/charts.ts";
import { DownloadStager, moveInto } from "./build/stage.ts";
import { codeVersion } from "./build/version.ts";
import { methodologyHtml } from "./lib/methodology.ts";
import { recentView } from "./lib/recent-view.ts";
import { readAlerts, scenarioOrder, type TargetView, targetsData } from "./lib/site-data.ts";
import { type SeriesDetail, type SiteIndex, seriesDetailFile } from "./lib/site-index.ts";

/** Where the build stages run documents, as the site serves them (`/data/runs/...`). */
const RUN_DOCUMENTS_DIR = join("data", "runs");

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
  /**
   * An incremental build, after runs of these targets only: their pages and their models' pages, with
   * every page that lists targets (rankings, compare, data, alerts, filters), `index.json` and the
   * CSVs; the other targets' run documents are not staged (the site has them), their sizes taken from
   * `runBytes` (what an earlier build returned); with `shared: false`, only the targets' and their
   * models' pages and run documents (a page batch of a fanned-out rebuild, whose finishing step builds
   * the shared pages once); with `everyModel`, every model's `index.json` and `runs.csv` (that finishing
   * step's, as its batches write none). Absent: every page.
   */
  only?: {
    targetIds: readonly string[];
    runBytes: Readonly<Record<string, number>>;
    shared?: boolean;
    everyModel?: boolean;
  };
  /** Where the subscribe form posts (the deployed subscribe function URL); the form is disabled without it. */
  subscribeUrl?: string;
  warn?: (message: string) => void;
}

export interface BuildSiteResult {
  outDir: string;
  targets: number;
  runDocuments: number;
  /** Each target's run documents' total size in bytes (what a later incremental build is given). */
  runBytes: Record<string, number>;
  /** HTML pages rendered. */
  pages: number;
  warnings: string[];
}

/**
 * The version of the code that builds the pages (`codeVersion`): the site's sources, the methodology,
 * and `also` (the publish bundle): publish rebuilds every page when it changes.
 */
export function siteCodeVersion(siteRoot: string = SITE_ROOT, also: readonly string[] = []): Promise<string> {
  return codeVersion([join(siteRoot, "src"), join(siteRoot, "..", "docs", "methodology.md"), ...also]);
}

/** Builds the whole site into outDir (replacing what was there). */
export async function buildSite(options: BuildSiteOptions): Promise<BuildSiteResult> {
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    (options.warn ?? ((w: string) => console.warn(`warning: ${w}`)))(m);
  };
  const siteRoot = options.siteRoot ?? SITE_ROOT;
  const work = await mkdtemp(join(tmpdir(), "kneeboard-site-"));
  try {
    // Everything read from the store is out of scope once the site index is written: Astro's pages
    // then hold the index alone, not a second copy of every view.
    const prepared = await writeSiteIndex(options, siteRoot, work, warn);
    const outDir = resolve(options.outDir);
    await rm(outDir, { recursive: true, force: true });
    const shared = options.only?.shared ?? true;
    await runAstro({ siteRoot, work, payloadFile: prepared.payloadFile, outDir, pages: shared ? "all" : "targets" });
    const pages = (await readdir(outDir, { recursive: true })).filter((p) => p.endsWith(".html")).length;
    if (shared)
      for (const entry of await readdir(prepared.staged))
        await moveInto(join(prepared.staged, entry), join(outDir, entry));
    // Without the shared pages, the downloads that list every target are left out too: only run documents.
    else if (existsSync(join(prepared.staged, RUN_DOCUMENTS_DIR)))
      await moveInto(join(prepared.staged, RUN_DOCUMENTS_DIR), join(outDir, RUN_DOCUMENTS_DIR));
    return {
      outDir,
      targets: prepared.targets,
      runDocuments: prepared.runDocuments,
      runBytes: prepared.runBytes,
      pages,
      warnings,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Reads the store one target at a time: its figures drawn and its detail files written while its
 * downloads are staged (CPU and file I/O overlap), then only its recent view kept for the pages that
 * list it; then the downloads that need every target, and the site index the pages read.
 */
async function writeSiteIndex(
  options: BuildSiteOptions,
  siteRoot: string,
  work: string,
  warn: (m: string) => void,
): Promise<{ payloadFile: string; staged: string } & Omit<BuildSiteResult, "outDir" | "warnings" | "pages">> {
  const generatedAt = options.now ?? new Date().toISOString();
  const staged = join(work, "public");
  const seriesDir = join(work, "series");
  await mkdir(seriesDir);
  const stager = new DownloadStager(options.store, staged, work);
  const series: TargetView[] = [];
  const firstRuns = new Map<string, string>();
  const only = options.only ? new Set(options.only.targetIds) : null;
  const runBytes: Record<string, number> = {};
  // An incremental build draws the pages of its targets' models too (every scenario's), and writes
  // those models' downloads: their targets are read whole, every other target from its summaries.
  const models = only ? await modelsOf(options.index, only) : null;
  // The models whose downloads are written: a fan-out's finishing step writes every model's.
  const fileModels = options.only?.everyModel ? null : models;
  const inFileModel = (summaries: SeriesSummary[]) =>
    summaries.some((s) => fileModels?.has(modelKeyOf(s.entries.at(-1) as RunIndexEntry)));
  const needsEntries =
    only &&
    fileModels &&
    ((summaries: SeriesSummary[]) => only.has(summaries[0]?.targetId ?? "") || inFileModel(summaries));
  for await (const target of targetsData({
    ...options,
    now: generatedAt,
    warn,
    ...(needsEntries ? { needsEntries } : {}),
  })) {
    const id = (target.views[0] as TargetView).id;
    const built = !only || only.has(id);
    const known = built ? undefined : (options.only?.runBytes[id] ?? 0);
    const [stagedDone, drawnDone] = await Promise.allSettled([
      stager.addTarget(target, { knownBytes: known, modelFiles: fileModels }),
      built ? writeSeriesDetails(target.views, seriesDir) : Promise.resolve(),
    ]);
    // Both settle before either's failure is thrown, so nothing is still writing into work when it is removed.
    if (stagedDone.status === "rejected") throw stagedDone.reason;
    if (drawnDone.status === "rejected") throw drawnDone.reason;
    runBytes[id] = stagedDone.value;
    series.push(...target.views.map(recentView));
    for (const [scenario, startedAt] of Object.entries(target.firstStartedAt))
      if ((firstRuns.get(scenario) ?? startedAt) >= startedAt) firstRuns.set(scenario, startedAt);
  }
  const scenarios = scenarioOrder([...firstRuns].map(([scenario, startedAt]) => ({ scenario, startedAt })));
  const alerts = await readAlerts(options.store, warn);
  const shared = options.only?.shared ?? true;
  const staging = shared ? await stager.finish({ generatedAt, scenarios, series }) : stager.totals();
  // The views a line each, written one at a time: no one string of them all.
  const seriesFile = join(work, "series.ndjson");
  const lines = createWriteStream(seriesFile);
  for (const view of series) if (!lines.write(`${JSON.stringify(view)}\n`)) await once(lines, "drain");
  lines.end();
  await finished(lines);
  const payload: SiteIndex = {
    generatedAt,
    series: [],
    seriesFile,
    scenarios,
    seriesDir,
    only: only && { targetIds: [...only], modelKeys: [...(models ?? [])] },
    charts: {},
    prefill: {},
    ...(await crossSeriesCharts({ series, scenarios }, models, shared)),
    alerts,
    downloads: staging.downloads,
    modelKeys: staging.modelKeys,
    runDocuments: { count: staging.runCount, bytes: staging.runBytes },
    subscribeUrl: options.subscribeUrl ?? null,
    methodologyHtml: await methodologyHtml(join(siteRoot, "..", "docs", "methodology.md")),
  };
  const payloadFile = join(work, "site-data.json");
  await writeFile(payloadFile, JSON.stringify(payload));
  return {
    payloadFile,
    staged,
    targets: new Set(series.map((v) => v.id)).size,
    runDocuments: staging.runCount,
    runBytes,
  };
}

/** The model keys of the targets' series (their newest runs'), read from their summaries. */
async function modelsOf(index: RunIndex, targetIds: ReadonlySet<string>): Promise<Set<string>> {
  const models = new Set<string>();
  for (const id of targetIds)
    for (const s of await index.summaries(id)) models.add(modelKeyOf(s.entries.at(-1) as RunIndexEntry));
  return models;
}

/** Each of a target's series' detail file (`SeriesDetail`): its whole view, its figures, the target's prefill curve. */
async function writeSeriesDetails(views: TargetView[], dir: string): Promise<void> {
  const prefill = await prefillChart(views);
  for (const view of views) {
    const detail: SeriesDetail = { view, charts: await targetCharts(view), prefill };
    await writeFile(join(dir, seriesDetailFile(view)), JSON.stringify(detail));
  }
}
