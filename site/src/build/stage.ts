/**
 * @module The build's first job: stage every download (index.json, runs.csv, the schemas, the public
 * store keys, the run documents, the browser bundles) in a folder, measuring each so the data page
 * can state its size; after Astro has run, move the staged files into the built site.
 */
import { cp, link, mkdir, readdir, rename, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { schemaFiles } from "@kneeboard/core/config/schemas";
import { mapBounded } from "@kneeboard/core/pool";
import type { Store } from "@kneeboard/core/store";
import type { SiteData } from "../lib/site-data.ts";
import type { Download } from "../lib/site-index.ts";
import { indexJson, runsCsv, standingCsv } from "./downloads.ts";

/** The browser builds of vega and vega-lite (UMD), beside each package's main file, for the compare page. */
const BROWSER_BUNDLES = [
  ["vega", "vega.min.js"],
  ["vega-lite", "vega-lite.min.js"],
] as const;
const require = createRequire(import.meta.url);

/** Store keys the public may download, served under `/data/<key>`. */
const PUBLIC_PREFIXES = ["feeds/", "alerts.json"];

/** What staging wrote: the downloads the data page lists, and the run documents' total size in bytes. */
export interface Staged {
  downloads: Download[];
  runBytes: number;
}

async function writeStaged(dir: string, path: string, body: string | Buffer): Promise<number> {
  const file = join(dir, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, body);
  return Buffer.byteLength(body);
}

/** How many run documents are copied at once: enough to keep the file system busy while charts render. */
const COPIES_IN_FLIGHT = 32;

/** Folders made so far, so thousands of documents in one folder cost one `mkdir`, not one each. */
type Folders = Map<string, Promise<unknown>>;

/**
 * Copies one store key into dir; a key the store keeps as a local file is hard-linked when it can
 * be (same disk, no copy). Returns the size in bytes (0 for a missing key).
 */
async function copyKey(store: Store, key: string, dir: string, folders: Folders = new Map()): Promise<number> {
  const file = join(dir, key);
  const folder = dirname(file);
  let made = folders.get(folder);
  if (!made) {
    made = mkdir(folder, { recursive: true });
    folders.set(folder, made);
  }
  await made;
  const source = store.localPath?.(key);
  if (source) {
    await link(source, file).catch(() => cp(source, file));
    return (await stat(file)).size;
  }
  const body = await store.get(key);
  if (body === null) return 0;
  return writeStaged(dir, key, body);
}

/** Stages every download under `staged` (which becomes the site's root). */
export async function stageDownloads(store: Store, data: SiteData, staged: string): Promise<Staged> {
  const downloads: Download[] = [];
  const add = async (path: string, holds: string, body: string) =>
    downloads.push({ path, holds, bytes: await writeStaged(staged, path, body) });
  await add(
    "data/index.json",
    "every target, its standing (medians with intervals over recent runs), its latest run, its history and its tool calls",
    indexJson(data),
  );
  const standings = data.series.map((t) => t.standing);
  await add(
    "data/runs.csv",
    "one row per run and level, every run of every scenario; inStanding marks the rows the standing is taken over; tool_calls_ columns give the run's tool calls",
    runsCsv(data.allEntries, standings),
  );
  await add(
    "data/standing.csv",
    "the standing: per target, scenario and level, each figure's median, its interval (low, high) and n runs",
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
    for (const key of await store.list(prefix)) {
      const bytes = await copyKey(store, key, join(staged, "data"));
      downloads.push({
        path: `data/${key}`,
        holds: key === "alerts.json" ? "every alert with its state" : "Atom feed of alerts",
        bytes,
      });
      if (key.startsWith("feeds/")) await copyKey(store, key, staged);
    }
  }
  const folders: Folders = new Map();
  const sizes = await mapBounded(data.allEntries, COPIES_IN_FLIGHT, (e) =>
    copyKey(store, e.key, join(staged, "data"), folders),
  );
  const runBytes = sizes.reduce((sum, bytes) => sum + bytes, 0);
  for (const [pkg, file] of BROWSER_BUNDLES) {
    await cp(join(dirname(require.resolve(pkg)), file), join(staged, "assets", file));
  }
  return { downloads, runBytes };
}

/** Moves a staged folder into the built site, merging with what Astro wrote there. */
export async function moveInto(from: string, to: string): Promise<void> {
  const exists = await stat(to).catch(() => null);
  if (!exists) {
    // Same disk: a rename; across disks (EXDEV): a copy.
    await rename(from, to).catch(() => cp(from, to, { recursive: true }));
    return;
  }
  for (const entry of await readdir(from)) await moveInto(join(from, entry), join(to, entry));
}
