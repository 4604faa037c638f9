/**
 * @module The build's first job: stage every download (index.json, each model's index.json and
 * runs.csv, the schemas, the public store keys, the run documents, the browser bundles) in a folder, a
 * target at a time, measuring each so the data page can state its size; after Astro has run, move the
 * staged files into the built site.
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
import { targetModelKey } from "../lib/models.ts";
import type { SiteData, TargetData } from "../lib/site-data.ts";
import type { Download } from "../lib/site-index.ts";
import {
  CSV_COLUMNS,
  type IndexModel,
  indexJsonFrame,
  indexJsonView,
  modelFiles,
  runsCsvRows,
  standingCsv,
  topIndexJson,
} from "./downloads.ts";

const INDEX_JSON = "data/index.json";

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
  /** Every model's key, in key order (each has its `index.json` and `runs.csv`, `modelFiles`). */
  modelKeys: string[];
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
 * Stages the downloads one target at a time (`addTarget`: its rows of its model's `runs.csv`, its views
 * of its model's `index.json`, its run documents), then the rest once every target is in (`finish`):
 * memory holds one target's entries, not every target's. A model's views wait in a scratch file until
 * the site's first scenario is known. An incremental build writes only some models' files (the site
 * keeps the others'); `index.json` lists every model.
 */
export class DownloadStager {
  private readonly folders: Folders = new Map();
  private readonly scratch: string;
  /** Every model met, its routes, and whether its files are written by this build. */
  private readonly models = new Map<string, IndexModel & { written: boolean }>();
  private runBytes = 0;
  private runCount = 0;

  constructor(
    private readonly store: Store,
    private readonly staged: string,
    scratch: string,
  ) {
    this.scratch = join(scratch, "index-views");
  }

  private viewsFile(modelKey: string): string {
    return join(this.scratch, `${encodeURIComponent(modelKey)}.ndjson`);
  }

  /**
   * One target's rows, views and run documents. With `knownBytes`, its documents are not staged (the
   * site already has them) and that is their size; with `modelFiles`, only the models it names have
   * their files written (an incremental build's: the site keeps the others'), and a target of none of
   * them may come with its summaries' entries alone. Returns the size of its documents.
   */
  async addTarget(
    t: TargetData,
    options: { knownBytes?: number; modelFiles?: ReadonlySet<string> | null } = {},
  ): Promise<number> {
    await mkdir(join(this.staged, "data"), { recursive: true });
    await mkdir(this.scratch, { recursive: true });
    for (const view of t.views) {
      const modelKey = targetModelKey(view);
      const writeModel = !options.modelFiles || options.modelFiles.has(modelKey);
      if (writeModel && !t.complete) throw new Error(`a model's files need every run of ${view.id}`);
      let model = this.models.get(modelKey);
      if (!model) {
        model = { modelKey, model: view.model, targetIds: [], written: false };
        this.models.set(modelKey, model);
      }
      if (!model.targetIds.includes(view.id)) model.targetIds.push(view.id);
      if (!writeModel) continue;
      const csv = join(this.staged, modelFiles(modelKey).runs);
      if (!model.written) {
        model.written = true;
        await mkdir(dirname(csv), { recursive: true });
        await writeFile(csv, `${CSV_COLUMNS.join(",")}\n`);
        await writeFile(this.viewsFile(modelKey), "");
      }
      const entries = t.entries.filter((e) => e.scenario === view.scenario);
      await appendFile(csv, runsCsvRows(entries, [view.standing]));
      await appendFile(
        this.viewsFile(modelKey),
        `${JSON.stringify({ scenario: view.scenario, simulated: view.simulated, json: JSON.stringify(indexJsonView(view)) })}\n`,
      );
    }
    const bytes =
      options.knownBytes ??
      (
        await mapBounded(t.entries, COPIES_IN_FLIGHT, (e) =>
          copyKey(this.store, e.key, join(this.staged, "data"), this.folders),
        )
      ).reduce((sum, n) => sum + n, 0);
    this.runBytes += bytes;
    this.runCount += t.runs;
    return bytes;
  }

  /** The run documents staged so far, for a build without the downloads that list every target (a page batch's). */
  totals(): Staged {
    return {
      downloads: [],
      runBytes: this.runBytes,
      runCount: this.runCount,
      modelKeys: [...this.models.keys()].sort((a, b) => a.localeCompare(b)),
    };
  }

  /** The downloads that need every target (index.json, each written model's index.json, standing.csv) and those that need none. */
  async finish(site: Pick<SiteData, "generatedAt" | "scenarios" | "series">): Promise<Staged> {
    await mkdir(join(this.staged, "data"), { recursive: true });
    const downloads: Download[] = [];
    const add = async (path: string, holds: string, body: string) =>
      downloads.push({ path, holds, bytes: await writeStaged(this.staged, path, body) });
    const models = [...this.models.values()].sort((a, b) => a.modelKey.localeCompare(b.modelKey));
    for (const m of models) if (m.written) await this.writeModelIndex(site, m.modelKey);
    await add(
      INDEX_JSON,
      "every scenario, and every model with its targets and the paths of its index.json and runs.csv",
      topIndexJson(
        site,
        site.series.some((t) => t.simulated),
        models.map(({ modelKey, model, targetIds }) => ({ modelKey, model, targetIds })),
      ),
    );
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
    return {
      downloads,
      runBytes: this.runBytes,
      runCount: this.runCount,
      modelKeys: models.map((m) => m.modelKey),
    };
  }

  /** A model's `index.json` from its views staged so far: the first scenario's, then every other, each in the order staged. */
  private async writeModelIndex(site: Pick<SiteData, "generatedAt" | "scenarios">, modelKey: string): Promise<void> {
    const first = site.scenarios[0] ?? "chat";
    const lines = async function* (file: string) {
      const input = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of input)
        if (line !== "") yield JSON.parse(line) as { scenario: string; simulated: boolean; json: string };
    };
    let simulated = false;
    for await (const v of lines(this.viewsFile(modelKey))) simulated ||= v.simulated;
    const frame = indexJsonFrame(site, simulated, modelKey);
    const out = createWriteStream(join(this.staged, modelFiles(modelKey).index));
    const pass = async (keep: (scenario: string) => boolean) => {
      let n = 0;
      for await (const { scenario, json } of lines(this.viewsFile(modelKey))) {
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
      const entries = data.allEntries.filter((e) => e.targetId === id);
      const views = data.series.filter((v) => v.id === id);
      await stager.addTarget({ views, entries, complete: true, runs: entries.length, firstStartedAt: {} });
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
