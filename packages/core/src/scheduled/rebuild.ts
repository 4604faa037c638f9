/**
 * @module A full rebuild fanned out over the publish queue, for a site too large for one invocation:
 * the publish that decides on it sends page batches (groups of targets) as messages to its own queue;
 * each batch's invocation builds its targets' and their models' pages alone and stages them under
 * `REBUILD_STAGING_PREFIX` in the site bucket (the live pages untouched); the batch that completes the
 * set (a conditional ledger, `RebuildLedger`) builds the pages shared by every target (rankings,
 * compare, `index.json`, the CSVs, the feeds), once, and swaps the new pages in: staged pages first,
 * then the shared pages that link to them, then what the new site no longer has is deleted, and the
 * staging and the batches' manifests with it. The queue redelivers a batch that fails.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { KneeboardError } from "../errors/index.ts";
import { contentTypeOf } from "../mime/index.ts";
import { mapBounded } from "../pool/index.ts";
import type { Store } from "../store/index.ts";
import type { MessageQueue } from "./messages.ts";
import type { Cdn, SiteBucket } from "./ports.ts";
import {
  type BuildScope,
  type FanOut,
  type PublishState,
  readState,
  SITE_RUNS_PREFIX,
  writeState,
} from "./publish-state.ts";
import type { Log } from "./sweep.ts";

/**
 * A full build's cost per target, seconds: the catalogue benchmark's full build, 616 s for 1,000
 * targets x 3 scenarios x 120 runs on a loaded 2-core machine (docs/benchmarks.md).
 */
export const FULL_BUILD_SECONDS_PER_TARGET = 0.616;
/**
 * What one publish invocation spends on page batches, seconds: half of Lambda's 15 minutes, so the
 * finishing batch still has time for the shared pages' build (an incremental build's cost) and the swap.
 */
export const BATCH_BUILD_BUDGET_SECONDS = 450;
/** Messages the publish queue hands one invocation (`batch.size` of its subscription in sst.config.ts). */
export const PUBLISH_QUEUE_BATCH_SIZE = 10;
/** Targets one invocation builds: above it, a full rebuild fans out (730). */
export const FAN_OUT_TARGETS = Math.floor(BATCH_BUILD_BUDGET_SECONDS / FULL_BUILD_SECONDS_PER_TARGET);
/**
 * A fan-out not finished this long after it began is given up (a batch dead-lettered): the next
 * publish starts another. Longer than a batch's three deliveries at the queue's 16-minute visibility.
 */
export const FAN_OUT_EXPIRY_MS = 60 * 60_000;

/** Where page batches stage the new site in the site bucket, per rebuild; never routed by the CDN. */
export const REBUILD_STAGING_PREFIX = "_rebuild/";
/** Where each batch records what it staged, in the results store (private). */
const MANIFEST_PREFIX = "publish/rebuild/";

/**
 * Targets a page batch holds: the queue may hand one invocation `PUBLISH_QUEUE_BATCH_SIZE` of them,
 * and together they stay within what one invocation builds (`maxTargets`).
 */
export function targetsPerBatch(maxTargets: number): number {
  return Math.max(1, Math.floor(maxTargets / PUBLISH_QUEUE_BATCH_SIZE));
}

/** One page batch of a fanned-out rebuild: the message a batch's invocation receives. */
export const PageBatchMessage = z.strictObject({
  rebuild: z.strictObject({
    /** The rebuild: names its staging prefix, its manifests and its ledger item. */
    generation: z.string().regex(/^[A-Za-z0-9._-]+$/),
    /** The rebuild's time: every batch builds its pages with it, so shared pages are the same bytes. */
    now: z.iso.datetime(),
    /** This batch's number, from 0. */
    batch: z.number().int().nonnegative(),
    /** How many batches the rebuild has. */
    batches: z.number().int().positive(),
    targets: z.array(z.string().min(1)).min(1),
  }),
});
export type PageBatchMessage = z.infer<typeof PageBatchMessage>;
export type PageBatch = PageBatchMessage["rebuild"];

/** Which batches of a rebuild are done, and which one finishes it. */
export interface RebuildLedger {
  /**
   * Records `batch` of `generation` done. True for exactly one batch, the one whose record completes
   * the set of `batches` (and again for a redelivery of that batch, so a finish that died is retried);
   * false for every other.
   */
  finishBatch(generation: string, batch: number, batches: number): Promise<boolean>;
  /** Removes a rebuild's record once it is swapped in (a late copy of its batches is dropped before it reaches the ledger). */
  forget(generation: string): Promise<void>;
}

/** The ledger in memory (tests, local use). */
export class MemoryRebuildLedger implements RebuildLedger {
  private readonly done = new Map<string, { batches: Set<number>; finisher?: number }>();

  async finishBatch(generation: string, batch: number, batches: number): Promise<boolean> {
    const item = this.done.get(generation) ?? { batches: new Set<number>() };
    this.done.set(generation, item);
    item.batches.add(batch);
    if (item.batches.size < batches) return false;
    item.finisher ??= batch;
    return item.finisher === batch;
  }

  async forget(generation: string): Promise<void> {
    this.done.delete(generation);
  }

  /** The rebuilds it holds a record of. */
  generations(): string[] {
    return [...this.done.keys()];
  }
}

/** What a fan-out needs beside publish's own ports. */
export interface FanOutDeps {
  /** The publish queue: the page batches are sent to it. */
  queue: MessageQueue;
  ledger: RebuildLedger;
  /** Targets one invocation builds (`FAN_OUT_TARGETS`): a full rebuild of more fans out. */
  maxTargets: number;
}

/** Splits the targets (sorted) into page batches of `targetsPerBatch(maxTargets)`. */
export function pageBatches(targetIds: readonly string[], maxTargets: number, generation: string, now: string) {
  const size = targetsPerBatch(maxTargets);
  const sorted = [...targetIds].sort();
  const batches = Math.ceil(sorted.length / size);
  return Array.from(
    { length: batches },
    (_, batch): PageBatch => ({
      generation,
      now,
      batch,
      batches,
      targets: sorted.slice(batch * size, (batch + 1) * size),
    }),
  );
}

/** Sends every page batch of a rebuild to the queue. */
export async function sendPageBatches(queue: MessageQueue, batches: readonly PageBatch[]): Promise<void> {
  await queue.send(...batches.map((rebuild) => ({ body: JSON.stringify({ rebuild } satisfies PageBatchMessage) })));
}

/** The HTML pages a build wrote into outDir: what an invocation reports it rendered. */
export async function countPages(outDir: string): Promise<number> {
  let pages = 0;
  for await (const { key } of builtFiles(outDir)) if (key.endsWith(".html")) pages++;
  return pages;
}

/** A built site's files: each key (its path under outDir, `/`-separated) and where it is. */
export async function* builtFiles(outDir: string): AsyncGenerator<{ key: string; path: string }> {
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    yield { key: relative(outDir, path).split(sep).join("/"), path };
  }
}

const sha256 = (body: Uint8Array) => createHash("sha256").update(body).digest("hex");

/** What one batch staged: its pages' hashes by live key, and its targets' run documents' sizes. */
const Manifest = z.object({ files: z.record(z.string(), z.string()), runBytes: z.record(z.string(), z.number()) });
type Manifest = z.infer<typeof Manifest>;

const stagingPrefix = (generation: string) => `${REBUILD_STAGING_PREFIX}${generation}/`;
const manifestKey = (generation: string, batch: number) => `${MANIFEST_PREFIX}${generation}/${batch}.json`;

/**
 * Stages a built site: every page under the rebuild's staging prefix, run documents (which never
 * change and nothing links to before the swap) straight to their live keys when absent. Returns the
 * staged pages' hashes by live key.
 */
export async function stageSite(
  outDir: string,
  bucket: SiteBucket,
  generation: string,
): Promise<Record<string, string>> {
  const runs = new Set(await bucket.list(SITE_RUNS_PREFIX));
  const hashes: Record<string, string> = {};
  for await (const { key, path } of builtFiles(outDir)) {
    if (key.startsWith(SITE_RUNS_PREFIX)) {
      if (!runs.has(key)) await bucket.put(key, await readFile(path), contentTypeOf(key));
      continue;
    }
    const body = await readFile(path);
    hashes[key] = sha256(body);
    await bucket.put(`${stagingPrefix(generation)}${key}`, body, contentTypeOf(key));
  }
  return hashes;
}

/** Records what a batch staged (idempotent: a redelivered batch writes the same manifest again). */
export async function writeManifest(store: Store, batch: PageBatch, manifest: Manifest): Promise<void> {
  await store.put(manifestKey(batch.generation, batch.batch), JSON.stringify(manifest), {
    contentType: "application/json",
  });
}

/** Every batch's manifest of a rebuild, merged: the staged pages and every target's run documents' size. */
export async function readManifests(store: Store, generation: string): Promise<Manifest> {
  const merged: Manifest = { files: {}, runBytes: {} };
  for (const key of await store.list(`${MANIFEST_PREFIX}${generation}/`)) {
    const manifest = Manifest.parse(JSON.parse((await store.get(key)) ?? "{}"));
    Object.assign(merged.files, manifest.files);
    Object.assign(merged.runBytes, manifest.runBytes);
  }
  return merged;
}

/**
 * Removes the manifests of every rebuild once one is swapped in: this one's, and any a given-up rebuild
 * (or a finish that died after the swap) left, as the swap clears every rebuild's staging.
 */
export async function deleteManifests(store: Store): Promise<void> {
  await store.delete(await store.list(MANIFEST_PREFIX));
}

/** Copies at once while swapping staged pages in. */
const COPY_CONCURRENCY = 16;

/**
 * Swaps a rebuild in: the staged pages the bucket does not already hold byte for byte are copied to
 * their live keys, then the shared pages built in `outDir` are uploaded (they link to the new pages),
 * then every live page the new site lacks is deleted (run documents never are), and the staging
 * prefix is cleared. Returns the counts and the hashes of every page the bucket now holds.
 */
export async function swapIn(
  outDir: string,
  bucket: SiteBucket,
  options: { generation: string; staged: Record<string, string>; known: Record<string, string> },
): Promise<{ files: number; deleted: number; hashes: Record<string, string> }> {
  const { generation, staged, known } = options;
  const present = new Set(await bucket.list(""));
  const shared: { key: string; body: Uint8Array; hash: string }[] = [];
  for await (const { key, path } of builtFiles(outDir)) {
    if (key.startsWith(SITE_RUNS_PREFIX) && present.has(key)) continue;
    const body = await readFile(path);
    shared.push({ key, body, hash: sha256(body) });
  }
  const sharedKeys = new Set(shared.map((f) => f.key));
  const unchanged = (key: string, hash: string) => present.has(key) && known[key] === hash;
  const copies = Object.entries(staged).filter(([key, hash]) => !sharedKeys.has(key) && !unchanged(key, hash));
  await mapBounded(copies, COPY_CONCURRENCY, ([key]) => bucket.copy(`${stagingPrefix(generation)}${key}`, key));
  const puts = shared.filter((f) => !unchanged(f.key, f.hash));
  for (const f of puts) await bucket.put(f.key, f.body, contentTypeOf(f.key));
  const hashes: Record<string, string> = { ...staged };
  for (const f of shared) if (!f.key.startsWith(SITE_RUNS_PREFIX)) hashes[f.key] = f.hash;
  const gone = [...present].filter(
    (k) => !(k in hashes) && !k.startsWith(SITE_RUNS_PREFIX) && !k.startsWith(REBUILD_STAGING_PREFIX),
  );
  if (gone.length) await bucket.delete(gone);
  // Every rebuild's staging: this one's, and any a given-up rebuild left.
  const staging = await bucket.list(REBUILD_STAGING_PREFIX);
  if (staging.length) await bucket.delete(staging);
  return { files: copies.length + puts.length, deleted: gone.length, hashes };
}

/** A fan-out that began and has neither finished nor expired. */
export function fanOutInProgress(state: PublishState | null, now: string): FanOut | null {
  const fanout = state?.fanout ?? null;
  if (fanout === null) return null;
  return Date.parse(now) - Date.parse(fanout.startedAt) < FAN_OUT_EXPIRY_MS ? fanout : null;
}

/** What a page batch's invocation needs (publish's deps provide it). */
export interface RebuildDeps {
  store: Store;
  siteBucket: SiteBucket;
  cdn?: Cdn;
  buildSite: (outDir: string, now: string, only?: BuildScope) => Promise<{ runBytes: Record<string, number> }>;
  outDir: string;
  fanOut?: FanOutDeps;
  log: Log;
}

/**
 * Fans a full rebuild of `targetIds` out: records it in the publish state (before the batches are
 * sent, so a batch finds its rebuild there, or knows it is stale), then sends its page batches.
 * Returns how many were sent.
 */
export async function startFanOut(
  deps: Pick<RebuildDeps, "store" | "fanOut" | "log"> & { now: string },
  targetIds: readonly string[],
  live: Pick<PublishState, "siteVersion" | "runBytes" | "files">,
): Promise<number> {
  if (!deps.fanOut) throw new KneeboardError("a fan-out needs publish's queue and ledger");
  const hash = createHash("sha256").update(`${live.siteVersion}\n${deps.now}`).digest("hex").slice(0, 8);
  const generation = `${deps.now.replace(/[^0-9]/g, "")}-${hash}`;
  const batches = pageBatches(targetIds, deps.fanOut.maxTargets, generation, deps.now);
  await writeState(deps.store, {
    ...live,
    fullPending: true,
    pendingTargets: [],
    fanout: { generation, startedAt: deps.now, batches: batches.length },
  });
  await sendPageBatches(deps.fanOut.queue, batches);
  deps.log.info(
    `publish fanned out: ${targetIds.length} targets, over the ${deps.fanOut.maxTargets} one invocation builds: ${batches.length} page batches (rebuild ${generation})`,
  );
  return batches.length;
}

/** What a page batch's invocation did. */
export interface RebuildResult {
  files: number;
  deleted: number;
  invalidated: boolean;
  /** Page batches it built: those of the rebuild in progress (others are dropped). */
  pageBatches: number;
  /** Whether it swapped the rebuild in (its batches were the last). */
  swapped: boolean;
  /** HTML pages it rendered: its batches' targets' and models' pages, and the shared pages where it swapped. */
  pagesBuilt: number;
  full: true;
}

/**
 * Builds page batches of the rebuild in progress (one build of their targets' pages), stages them and
 * records each batch done; the batch that completes the rebuild builds the shared pages and swaps the
 * new site in. Batches of a rebuild no longer in progress (finished, or given up) are dropped.
 */
export async function buildPageBatches(batches: readonly PageBatch[], deps: RebuildDeps): Promise<RebuildResult> {
  const log = deps.log;
  if (!deps.fanOut) throw new KneeboardError("page batches reached a publish without a fan-out ledger");
  const state = await readState(deps.store, log);
  const fanout = state?.fanout ?? null;
  const none: RebuildResult = {
    files: 0,
    deleted: 0,
    invalidated: false,
    pageBatches: 0,
    swapped: false,
    pagesBuilt: 0,
    full: true,
  };
  const current = batches.filter((b) => b.generation === fanout?.generation);
  if (state === null || fanout === null || current.length < batches.length)
    log.warn(`dropped ${batches.length - current.length} page batches of a rebuild no longer in progress`);
  if (state === null || fanout === null || current.length === 0) return none;
  const now = (current[0] as PageBatch).now;
  const targets = [...new Set(current.flatMap((b) => b.targets))];
  // Its targets' pages only: the pages every target shares are the finishing step's, built once.
  const built = await deps.buildSite(deps.outDir, now, { targetIds: targets, runBytes: state.runBytes, shared: false });
  const pagesBuilt = await countPages(deps.outDir);
  const staged = await stageSite(deps.outDir, deps.siteBucket, fanout.generation);
  for (const b of current) {
    const runBytes = Object.fromEntries(b.targets.map((t) => [t, built.runBytes[t] ?? 0]));
    await writeManifest(deps.store, b, { files: staged, runBytes });
  }
  let finisher = false;
  for (const b of current) if (await deps.fanOut.ledger.finishBatch(b.generation, b.batch, b.batches)) finisher = true;
  log.info(
    `staged page batches ${current.map((b) => b.batch).join(", ")} of ${fanout.batches} (rebuild ${fanout.generation}): ${targets.length} targets`,
  );
  if (!finisher) return { ...none, pageBatches: current.length, pagesBuilt };
  const finished = await finishRebuild(deps, state, fanout, now);
  return { ...finished, pageBatches: current.length, pagesBuilt: pagesBuilt + finished.pagesBuilt };
}

/** The last batch's step: builds the shared pages with every batch's sizes, swaps the new site in, invalidates. */
async function finishRebuild(
  deps: RebuildDeps,
  state: PublishState,
  fanout: FanOut,
  now: string,
): Promise<Omit<RebuildResult, "pageBatches">> {
  const log = deps.log;
  const staged = await readManifests(deps.store, fanout.generation);
  await deps.buildSite(deps.outDir, now, { targetIds: [], runBytes: staged.runBytes, everyModel: true });
  const pagesBuilt = await countPages(deps.outDir);
  const swapped = await swapIn(deps.outDir, deps.siteBucket, {
    generation: fanout.generation,
    staged: staged.files,
    known: state.files,
  });
  await writeState(deps.store, {
    siteVersion: state.siteVersion,
    fullPending: false,
    pendingTargets: [],
    runBytes: staged.runBytes,
    files: swapped.hashes,
    fanout: null,
  });
  // After the state: a finish that dies before here is redelivered and reads the manifests again.
  await deleteManifests(deps.store);
  await deps.fanOut?.ledger.forget(fanout.generation);
  if (deps.cdn) await deps.cdn.invalidate(["/*"], `${fanout.generation}-swap`);
  log.info(
    `published (every page, rebuild ${fanout.generation} over ${fanout.batches} page batches): ${swapped.files} files written, ${swapped.deleted} deleted`,
  );
  return {
    files: swapped.files,
    deleted: swapped.deleted,
    invalidated: deps.cdn !== undefined,
    swapped: true,
    pagesBuilt,
    full: true,
  };
}
