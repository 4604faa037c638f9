/**
 * @module Builds the static site from a store: reads it through the ports, stages the downloads
 * (so the data page can state their sizes), runs Astro, then moves the downloads into place.
 * Writes only under `outDir` and the system temp folder (never the site's sources), so it runs inside Lambda (`/tmp`).
 */
import { cp, link, mkdir, mkdtemp, readdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { StandingConfig } from "@kneeboard/core/config";
import { schemaFiles } from "@kneeboard/core/config/schemas";
import type { RunIndex } from "@kneeboard/core/history";
import type { Store } from "@kneeboard/core/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { build } from "astro";
import { indexJson, runsCsv, standingCsv } from "./lib/downloads.ts";
import { type Download, SITE_DATA_ENV, type SitePayload } from "./lib/payload.ts";
import { loadSiteData } from "./lib/site-data.ts";
import { targetCharts } from "./lib/target-charts.ts";

const SITE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The browser builds of vega and vega-lite (UMD), beside each package's main file, for the compare page. */
const BROWSER_BUNDLES = [
  ["vega", "vega.min.js"],
  ["vega-lite", "vega-lite.min.js"],
] as const;
const require = createRequire(import.meta.url);

/** Store keys the public may download, served under `/data/<key>` (SPEC section 6). */
const PUBLIC_PREFIXES = ["feeds/", "alerts.json"];

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

async function writeStaged(dir: string, path: string, body: string | Buffer): Promise<number> {
  const file = join(dir, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, body);
  return Buffer.byteLength(body);
}

/** Copies one store key into dir; a local store's file is hard-linked when it can be (same disk, no copy). */
async function copyKey(store: Store, key: string, dir: string): Promise<number> {
  const file = join(dir, key);
  await mkdir(dirname(file), { recursive: true });
  if (store instanceof FolderStore) {
    const source = join(store.root, key);
    await link(source, file).catch(() => cp(source, file));
    return (await stat(file)).size;
  }
  const body = await store.get(key);
  if (body === null) return 0;
  return writeStaged(dir, key, body);
}

/**
 * A copy of the site's sources under work, with the installed packages linked beside it: Astro writes
 * into its root (`.astro/`), and the real sources may be read-only (Lambda's /var/task).
 */
async function sourcesCopy(work: string): Promise<string> {
  const root = join(work, "site");
  await cp(join(SITE_ROOT, "src"), join(root, "src"), { recursive: true });
  const astro = require.resolve("astro");
  const nodeModules = astro.slice(0, astro.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  await symlink(nodeModules, join(root, "node_modules"), "dir");
  return root;
}

/** Moves a staged folder into the built site, merging with what Astro wrote there. */
async function moveInto(from: string, to: string): Promise<void> {
  const exists = await stat(to).catch(() => null);
  if (!exists) {
    // Same disk: a rename; across disks (EXDEV): a copy.
    await rename(from, to).catch(() => cp(from, to, { recursive: true }));
    return;
  }
  for (const entry of await readdir(from)) await moveInto(join(from, entry), join(to, entry));
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
    const downloads: Download[] = [];
    const add = async (path: string, holds: string, body: string) =>
      downloads.push({ path, holds, bytes: await writeStaged(staged, path, body) });
    await add(
      "data/index.json",
      "every target, its standing (medians with intervals over recent runs), its latest run and its history",
      indexJson(data),
    );
    const standings = data.targets.map((t) => t.standing);
    await add(
      "data/runs.csv",
      "one row per run and concurrency level, every run; inStanding marks the rows the standing is taken over",
      runsCsv(data.entries, standings),
    );
    await add(
      "data/standing.csv",
      "the standing: per target and level, each figure's median, its interval (low, high) and n runs",
      standingCsv(standings),
    );
    for (const [path, text] of Object.entries(schemaFiles())) {
      await add(
        `data/${path}`,
        path.includes("config") ? "JSON Schema of the config file" : "JSON Schema of a run document",
        text,
      );
    }
    for (const prefix of PUBLIC_PREFIXES) {
      for (const key of await options.store.list(prefix)) {
        const bytes = await copyKey(options.store, key, join(staged, "data"));
        downloads.push({
          path: `data/${key}`,
          holds: key === "alerts.json" ? "every alert with its state" : "Atom feed of alerts",
          bytes,
        });
        if (key.startsWith("feeds/")) await copyKey(options.store, key, staged);
      }
    }
    let runBytes = 0;
    for (const e of data.entries) runBytes += await copyKey(options.store, e.key, join(staged, "data"));
    for (const [pkg, file] of BROWSER_BUNDLES) {
      await cp(join(dirname(require.resolve(pkg)), file), join(staged, "assets", file));
    }

    const payload: SitePayload = {
      generatedAt: data.generatedAt,
      targets: data.targets,
      charts: Object.fromEntries(
        await Promise.all(data.targets.map(async (t) => [t.id, await targetCharts(t)] as const)),
      ),
      alerts: data.alerts,
      downloads,
      runDocuments: { count: data.entries.length, bytes: runBytes },
      subscribeUrl: options.subscribeUrl ?? null,
    };
    const payloadFile = join(work, "site-data.json");
    await writeFile(payloadFile, JSON.stringify(payload));

    const root = await sourcesCopy(work);
    const outDir = resolve(options.outDir);
    await rm(outDir, { recursive: true, force: true });
    process.env[SITE_DATA_ENV] = payloadFile;
    process.env.ASTRO_TELEMETRY_DISABLED = "1";
    // Astro puts its intermediate server build in `<cwd>/.astro/` unless outDir lies under cwd, and
    // cwd may be read-only (Lambda's /var/task): build from outDir's parent so all writes stay there.
    const cwd = process.cwd();
    await mkdir(dirname(outDir), { recursive: true });
    process.chdir(dirname(outDir));
    try {
      await build({
        root,
        configFile: false,
        outDir,
        cacheDir: join(work, "cache"),
        logLevel: "warn",
        output: "static",
        trailingSlash: "always",
        build: { format: "directory", inlineStylesheets: "always" },
        // Bundle every dependency into the server chunks: they run from outDir, where no node_modules is.
        vite: { cacheDir: join(work, "vite"), logLevel: "warn", ssr: { noExternal: true } },
        devToolbar: { enabled: false },
      } as Parameters<typeof build>[0]);
    } finally {
      process.chdir(cwd);
      delete process.env[SITE_DATA_ENV];
    }
    for (const entry of await readdir(staged)) await moveInto(join(staged, entry), join(outDir, entry));
    return { outDir, targets: data.targets.length, runDocuments: data.entries.length, warnings: data.warnings };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
