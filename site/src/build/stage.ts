/**
 * @module The build's first job: stage every download (index.json, runs.csv, the schemas, the public
 * store keys, the run documents, the browser bundles) in a folder, a target at a time, measuring each
 * so the data page can state its size; after Astro has run, move the staged files into the built site.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { appendFile, cp, link, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";
import { schemaFiles } from "@kneeboard/core/config/schemas";
import { mapBounded } from "@kneeboard/core/pool";
import type { Store } from "@kneeboard/core/store";
import type { SiteData, TargetData } from "../lib/site-data.ts";
import type { Download } from "../lib/site-index.ts";
import { CSV_COLUMNS, indexJsonFrame, indexJsonView, runsCsvRows, standingCsv } from "./downloads.ts";

const INDEX_JSON = "data/index.json";
const RUNS_CSV = "data/runs.csv";

/** The browser builds of vega and vega-lite (UMD), beside each package's main file, for the compare page. */
const BROWSER_BUNDLES = [
  ["vega", "vega.min.js"],
  ["vega-lite", "vega-lite.min.js"],
] as const;
const require = createRequire(import.meta.url);

/** Store keys the public may download, served under `/data/<key>`. */
const PUBLIC_PREFIXES = ["feeds/", "alerts.json"];

/** What staging wrote: the downloads the data page lists, and the run documents' count and total size in bytes. */
export interface Staged {
  downloads: Download[];
  runBytes: number;
  runCount: number;
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
    try {
      await link(source, file);
    } catch (error) {
      // A missing file is a missing key, as `get` says for other stores: 0 bytes, nothing copied.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
      await cp(source, file);
    }
    return (await stat(file)).size;
  }
  const body = await store.get(key);
  if (body === null) return 0;
  return writeStaged(dir, key, body);
}

/**
 * Stages the downloads one target at a time (`addTarget`: its rows of `runs.csv`, its views of
 * `index.json`, its run documents), then the rest once every target is in (`finish`): memory holds
 * one target's entries, not every target's. `index.json`'s views wait in a scratch file until the
 * site's first scenario is known.
 */
export class DownloadStager {
  private readonly folders: Folders = new Map();
  private readonly viewsFile: string;
  private runBytes = 0;
  private runCount = 0;
  private started = false;

  constructor(
    private readonly store: Store,
    private readonly staged: string,
    scratch: string,
  ) {
    this.viewsFile = join(scratch, "index-views.ndjson");
  }

  private async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await mkdir(join(this.staged, "data"), { recursive: true });
    await writeFile(join(this.staged, RUNS_CSV), `${CSV_COLUMNS.join(",")}\n`);
    await writeFile(this.viewsFile, "");
  }

  /**
   * One target's rows, views and run documents; with `knownBytes`, its documents are not staged (the
   * site already has them) and that is their size. Returns the size of its documents.
   */
  async addTarget(t: TargetData, knownBytes?: number): Promise<number> {
    await this.start();
    await appendFile(
      join(this.staged, RUNS_CSV),
      runsCsvRows(
        t.entries,
        t.views.map((v) => v.standing),
      ),
    );
    await appendFile(
      this.viewsFile,
      t.views
        .map((v) => `${JSON.stringify({ scenario: v.scenario, json: JSON.stringify(indexJsonView(v)) })}\n`)
        .join(""),
    );
    const bytes =
      knownBytes ??
      (
        await mapBounded(t.entries, COPIES_IN_FLIGHT, (e) =>
          copyKey(this.store, e.key, join(this.staged, "data"), this.folders),
        )
      ).reduce((sum, n) => sum + n, 0);
    this.runBytes += bytes;
    this.runCount += t.entries.length;
    return bytes;
  }

  /** The run documents staged so far, for a build without the downloads that list every target (a page batch's). */
  totals(): Staged {
    return { downloads: [], runBytes: this.runBytes, runCount: this.runCount };
  }

  /** The downloads that need every target (index.json, standing.csv) and those that need none. */
  async finish(site: Pick<SiteData, "generatedAt" | "scenarios" | "series">): Promise<Staged> {
    await this.start();
    const downloads: Download[] = [];
    const sized = async (path: string) => (await stat(join(this.staged, path))).size;
    const add = async (path: string, holds: string, body: string) =>
      downloads.push({ path, holds, bytes: await writeStaged(this.staged, path, body) });
    await this.writeIndexJson(site);
    downloads.push({
      path: INDEX_JSON,
      holds:
        "every target, its standing (medians with intervals over recent runs), its latest run, its history and its tool calls",
      bytes: await sized(INDEX_JSON),
    });
    downloads.push({
      path: RUNS_CSV,
      holds:
        "one row per run and level, every run of every scenario; inStanding marks the rows the standing is taken over; tool_calls_ columns give the run's tool calls",
      bytes: await sized(RUNS_CSV),
    });
    await add(
      "data/standing.csv",
      "the standing: per target, scenario and level, each figure's median, its interval (low, high) and n runs",
      standingCsv(site.series.map((t) => t.standing)),
    );
    for (const [path, text] of Object.entries(schemaFiles())) {
      await add(
        `data/${path}`,
        path.includes("config") ? "JSON Schema of the config file" : "JSON Schema of a run document",
        text,
      );
    }
    for (const prefix of PUBLIC_PREFIXES) {
      for (const key of await this.store.list(prefix)) {
        const bytes = await copyKey(this.store, key, join(this.staged, "data"));
        downloads.push({
          path: `data/${key}`,
          holds: key === "alerts.json" ? "every alert with its state" : "Atom feed of alerts",
          bytes,
        });
        if (key.startsWith("feeds/")) await copyKey(this.store, key, this.staged);
      }
    }
    for (const [pkg, file] of BROWSER_BUNDLES) {
      await cp(join(dirname(require.resolve(pkg)), file), join(this.staged, "assets", file));
    }
    return { downloads, runBytes: this.runBytes, runCount: this.runCount };
  }

  /** `index.json` from the views staged so far: the first scenario's, then every other, each in the order staged. */
  private async writeIndexJson(site: Pick<SiteData, "generatedAt" | "scenarios" | "series">): Promise<void> {
    const first = site.scenarios[0] ?? "chat";
    const frame = indexJsonFrame(
      site,
      site.series.some((t) => t.simulated),
    );
    const out = createWriteStream(join(this.staged, INDEX_JSON));
    const pass = async (keep: (scenario: string) => boolean) => {
      let n = 0;
      const lines = createInterface({ input: createReadStream(this.viewsFile), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        if (line === "") continue;
        const { scenario, json } = JSON.parse(line) as { scenario: string; json: string };
        if (!keep(scenario)) continue;
        if (!out.write(`${n++ > 0 ? "," : ""}${json}`)) await once(out, "drain");
      }
    };
    out.write(frame.head);
    await pass((s) => s === first);
    out.write(frame.between);
    await pass((s) => s !== first);
    out.end(frame.tail);
    await finished(out);
  }
}

/** Stages every download of `data` under `staged` (which becomes the site's root), one target at a time. */
export async function stageDownloads(store: Store, data: SiteData, staged: string): Promise<Staged> {
  const scratch = await mkdtemp(join(tmpdir(), "kneeboard-stage-"));
  try {
    const stager = new DownloadStager(store, staged, scratch);
    for (const id of new Set(data.series.map((v) => v.id))) {
      await stager.addTarget({
        views: data.series.filter((v) => v.id === id),
        entries: data.allEntries.filter((e) => e.targetId === id),
      });
    }
    return await stager.finish(data);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
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
