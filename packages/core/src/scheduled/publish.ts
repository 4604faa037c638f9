/**
 * @module Publishing after sweeps: check for regressions, deliver alerts, rebuild the site, upload what
 * changed to the site bucket (and, after a full rebuild, delete what it no longer has), then
 * invalidate the CDN. After a batch of sweeps whose targets are named, only those targets' pages (with
 * their models' and every page that lists targets) are rebuilt; a full rebuild runs when the site's
 * code changed, when a message names no targets, or when an earlier full rebuild did not finish. What
 * was begun is recorded in the store first (`PUBLISH_STATE_KEY`), so a publish that dies midway is
 * finished by the next one; the bucket's files are only ever replaced whole, so the site stays
 * readable meanwhile. The site build is passed in (the site package depends on the core, not the
 * other way round).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { AlertLedger } from "../ledger/index.ts";
import { contentTypeOf } from "../mime/index.ts";
import { type Channel, deliver } from "../notify/index.ts";
import { evaluateStore } from "../regress/check.ts";
import type { RunIndex } from "../run-index/index.ts";
import type { Store } from "../store/index.ts";
import { type BatchItemFailure, excerpt, PublishMessage, parseMessage, type QueueRecord } from "./messages.ts";
import type { Cdn, SiteBucket } from "./ports.ts";
import { type BuildScope, readState, SITE_RUNS_PREFIX, writeState } from "./publish-state.ts";
import {
  buildPageBatches,
  builtFiles,
  countPages,
  type FanOutDeps,
  fanOutInProgress,
  type PageBatch,
  PageBatchMessage,
  startFanOut,
} from "./rebuild.ts";
import type { Log } from "./sweep.ts";

export { type BuildScope, PUBLISH_STATE_KEY, PublishState, SITE_RUNS_PREFIX } from "./publish-state.ts";

export interface PublishDeps {
  store: Store;
  index: RunIndex;
  ledger: AlertLedger;
  channels: Channel[];
  /**
   * Builds the site into outDir (the site package's `buildSite`): every page, or with `only`, an
   * incremental build's; returns each target's run documents' size.
   */
  buildSite: (outDir: string, now: string, only?: BuildScope) => Promise<{ runBytes: Record<string, number> }>;
  /**
   * The site code's version (a hash of its sources): pages built by another are rebuilt in full.
   * Absent: every publish rebuilds every page.
   */
  siteVersion?: string;
  /** A writable folder for the build (`/tmp/...` in Lambda). */
  outDir: string;
  siteBucket: SiteBucket;
  /** Absent when no CDN fronts the bucket (nothing to invalidate). */
  cdn?: Cdn;
  /** The site's URL: the feeds' `self` and entry links are absolute under it; relative without it. */
  siteUrl?: string;
  /** The publish time, ISO 8601 UTC. */
  now: string;
  /** Absent: every full rebuild runs in this invocation, however many targets. */
  fanOut?: FanOutDeps;
  log?: Log;
}

export interface PublishSummary {
  /** Valid publish messages in the batch (each names the runs a sweep stored). */
  messages: number;
  /** Malformed messages: logged and reported as batch item failures. */
  rejected: number;
  /** Alerts of the whole history after this check. */
  alerts: number;
  /** Whether every page was rebuilt (else only the named targets' and the pages that list targets). */
  full: boolean;
  /** Files uploaded to the site bucket (those whose bytes changed). */
  files: number;
  /** Files deleted from the site bucket: the previous build had them, this one does not. */
  deleted: number;
  /** Whether the CDN was asked to drop its copies. */
  invalidated: boolean;
  /** Page batches this publish sent, fanning a full rebuild out (0: it built here, or built none). */
  fannedOut: number;
  /** Page batches of a fanned-out rebuild this invocation built and staged. */
  pageBatches: number;
  /** Whether this invocation swapped a fanned-out rebuild in (its batches were the last). */
  swapped: boolean;
  /** HTML pages this invocation rendered (a page batch: its targets' and models' pages; the swap adds the shared pages). */
  pagesBuilt: number;
  /** Publish messages returned to the queue, to be published after the fan-out in progress. */
  deferred: number;
  batchItemFailures: BatchItemFailure[];
}

const consoleLog: Log = { info: (m) => console.log(m), warn: (m) => console.warn(m) };

/**
 * Validates the batch, then publishes once for all of it. A malformed message is reported (so it
 * ends in the dead-letter queue) but does not stop the publish: the store, not the message, says
 * what to publish. Page batches of a fanned-out rebuild (`rebuild.ts`) are built instead, alone: a
 * failed one is reported, so the queue delivers it again.
 */
export async function publishBatch(records: readonly QueueRecord[], deps: PublishDeps): Promise<PublishSummary> {
  const log = deps.log ?? consoleLog;
  const rejected: BatchItemFailure[] = [];
  const published: QueueRecord[] = [];
  const batches: { record: QueueRecord; batch: PageBatch }[] = [];
  // The targets the batch names; null once a message names none (every page is rebuilt then).
  let targets: Set<string> | null = new Set();
  for (const record of records) {
    const batch = parseMessage(PageBatchMessage, record.body);
    if (batch.ok) {
      batches.push({ record, batch: batch.message.rebuild });
      continue;
    }
    const parsed = parseMessage(PublishMessage, record.body);
    if (parsed.ok) {
      published.push(record);
      if (parsed.message.targets === undefined) targets = null;
      else for (const t of parsed.message.targets) targets?.add(t);
      continue;
    }
    log.warn(
      `rejected publish message ${record.messageId}: malformed: ${parsed.problem}; body ${excerpt(record.body)}`,
    );
    rejected.push({ itemIdentifier: record.messageId });
  }
  const defer = (list: QueueRecord[]) => list.map((r) => ({ itemIdentifier: r.messageId }));
  const none = {
    alerts: 0,
    full: false,
    files: 0,
    deleted: 0,
    invalidated: false,
    fannedOut: 0,
    swapped: false,
    pagesBuilt: 0,
  };
  // An invocation with page batches builds only them (its time is sized for them): publish messages
  // beside them go back to the queue.
  if (batches.length > 0) {
    const built = await buildPageBatches(
      batches.map((b) => b.batch),
      { ...deps, log },
    ).catch((error: unknown) => {
      // The queue redelivers the batches (then dead-letters them); the live site is untouched.
      log.warn(`page batches ${batches.map((b) => b.batch.batch).join(", ")} failed: ${String(error)}`);
      return null;
    });
    const failed = built === null ? defer(batches.map((b) => b.record)) : [];
    return {
      messages: published.length + batches.length,
      rejected: rejected.length,
      ...none,
      pageBatches: 0,
      ...(built ?? {}),
      deferred: published.length,
      batchItemFailures: [...rejected, ...failed, ...defer(published)],
    };
  }
  // A batch with no valid message (a manual invoke) names no targets either.
  const result = await publish(deps, published.length > 0 && targets ? [...targets] : null);
  if (result === "deferred")
    return {
      messages: published.length,
      rejected: rejected.length,
      ...none,
      pageBatches: 0,
      deferred: published.length,
      batchItemFailures: [...rejected, ...defer(published)],
    };
  return {
    messages: published.length,
    rejected: rejected.length,
    ...result,
    pageBatches: 0,
    deferred: 0,
    batchItemFailures: rejected,
  };
}

type Published = Pick<
  PublishSummary,
  "alerts" | "full" | "files" | "deleted" | "invalidated" | "fannedOut" | "swapped" | "pagesBuilt"
>;

/**
 * Checks, delivers, builds (every page, or after runs of `targets` only theirs and the pages that
 * list targets), uploads what changed, deletes what is gone after a full rebuild, invalidates. A full
 * rebuild of more targets than one invocation builds fans out instead (`rebuild.ts`); while one is in
 * progress, a publish does nothing and says "deferred" (its messages wait in the queue).
 */
export async function publish(
  deps: PublishDeps,
  targets: readonly string[] | null = null,
): Promise<Published | "deferred"> {
  const log = deps.log ?? consoleLog;
  const warn = (m: string) => log.warn(m);
  const before = deps.siteVersion === undefined ? null : await readState(deps.store, log);
  if (fanOutInProgress(before, deps.now)) {
    log.info(`publish deferred: the full rebuild ${before?.fanout?.generation} is in progress`);
    return "deferred";
  }
  const { alerts } = await evaluateStore({
    store: deps.store,
    index: deps.index,
    now: deps.now,
    siteUrl: deps.siteUrl,
    warn,
  });
  await deliver(alerts, { ledger: deps.ledger, channels: deps.channels, warn });
  const full = before === null || before.siteVersion !== deps.siteVersion || before.fullPending || targets === null;
  const pendingTargets = full ? [] : [...new Set([...(before?.pendingTargets ?? []), ...targets])].sort();
  const siteVersion = deps.siteVersion ?? "";
  const files = before?.files ?? {};
  const runBytes = before?.runBytes ?? {};
  if (full && deps.fanOut && deps.siteVersion !== undefined) {
    const targetIds = await deps.index.targetIds();
    if (targetIds.length > deps.fanOut.maxTargets) {
      const fannedOut = await startFanOut({ ...deps, log }, targetIds, { siteVersion, runBytes, files });
      const none = { files: 0, deleted: 0, invalidated: false, swapped: false, pagesBuilt: 0 };
      return { alerts: alerts.length, full, ...none, fannedOut };
    }
  }
  // Recorded before anything is uploaded: a publish that dies from here on is finished by the next.
  if (deps.siteVersion !== undefined)
    await writeState(deps.store, { siteVersion, fullPending: full, pendingTargets, runBytes, files, fanout: null });
  const built = await deps.buildSite(deps.outDir, deps.now, full ? undefined : { targetIds: pendingTargets, runBytes });
  const pagesBuilt = await countPages(deps.outDir);
  const uploaded = await uploadSite(deps.outDir, deps.siteBucket, { deleteGone: full, known: files });
  if (deps.siteVersion !== undefined)
    await writeState(deps.store, {
      siteVersion,
      fullPending: false,
      pendingTargets: [],
      runBytes: built.runBytes,
      files: uploaded.hashes,
      fanout: null,
    });
  if (deps.cdn) await deps.cdn.invalidate(["/*"], deps.now);
  log.info(
    `published${full ? " (every page)" : ` (the pages of ${pendingTargets.length === 1 ? "1 target" : `${pendingTargets.length} targets`} and every page that lists targets)`}: ${alerts.length} alerts, ${uploaded.files} files uploaded, ${uploaded.deleted} deleted`,
  );
  return {
    alerts: alerts.length,
    full,
    files: uploaded.files,
    deleted: uploaded.deleted,
    invalidated: deps.cdn !== undefined,
    fannedOut: 0,
    swapped: false,
    pagesBuilt,
  };
}

/**
 * Uploads every file of the built site under its relative path, with its served content type, except
 * run documents the bucket already holds and files whose bytes match `known` (their hashes as last
 * uploaded); with `deleteGone` (a full build), then deletes what the bucket holds and the build does
 * not (a page of a target no longer listed), after the upload so no page is missing meanwhile. Run
 * documents are never deleted: a stored run stays downloadable. Returns the counts, and every file's
 * hash as the bucket now holds it.
 */
export async function uploadSite(
  outDir: string,
  bucket: SiteBucket,
  options: { deleteGone?: boolean; known?: Readonly<Record<string, string>> } = {},
): Promise<{ files: number; deleted: number; hashes: Record<string, string> }> {
  const { deleteGone = true, known = {} } = options;
  const before = await bucket.list("");
  const present = new Set(before);
  const hashes: Record<string, string> = deleteGone
    ? {}
    : Object.fromEntries(Object.entries(known).filter(([k]) => present.has(k)));
  const built = new Set<string>();
  let files = 0;
  for await (const { key, path } of builtFiles(outDir)) {
    built.add(key);
    if (key.startsWith(SITE_RUNS_PREFIX) && present.has(key)) continue;
    const body = await readFile(path);
    const hash = createHash("sha256").update(body).digest("hex");
    hashes[key] = hash;
    if (present.has(key) && known[key] === hash) continue;
    await bucket.put(key, body, contentTypeOf(key));
    files++;
  }
  const gone = deleteGone ? before.filter((k) => !built.has(k) && !k.startsWith(SITE_RUNS_PREFIX)) : [];
  if (gone.length) await bucket.delete(gone);
  return { files, deleted: gone.length, hashes };
}
