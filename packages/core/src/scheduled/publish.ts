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
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import type { AlertLedger } from "../ledger/index.ts";
import { contentTypeOf } from "../mime/index.ts";
import { type Channel, deliver } from "../notify/index.ts";
import { evaluateStore } from "../regress/check.ts";
import type { RunIndex } from "../run-index/index.ts";
import type { Store } from "../store/index.ts";
import { type BatchItemFailure, excerpt, PublishMessage, parseMessage, type QueueRecord } from "./messages.ts";
import type { Cdn, SiteBucket } from "./ports.ts";
import type { Log } from "./sweep.ts";

/** Where the built site keeps the run documents; a stored run never changes, so each is uploaded once. */
export const SITE_RUNS_PREFIX = "data/runs/";

/** Where publish records what the site bucket holds and what it began (in the results store, never public). */
export const PUBLISH_STATE_KEY = "publish/state.json";

/** What the site bucket holds, as publish left it. */
export const PublishState = z.object({
  /** The site code its pages were built by (`PublishDeps.siteVersion`). */
  siteVersion: z.string(),
  /** A full rebuild was begun and has not finished: the next publish rebuilds every page. */
  fullPending: z.boolean(),
  /** Targets whose pages a publish began to rebuild and has not finished: the next one rebuilds them too. */
  pendingTargets: z.array(z.string()),
  /** Each target's run documents' size in bytes, from the last build (an incremental build states the total). */
  runBytes: z.record(z.string(), z.number()),
  /** Each uploaded file's SHA-256 (hex), by key: a file whose bytes did not change is not uploaded again. */
  files: z.record(z.string(), z.string()),
});
export type PublishState = z.infer<typeof PublishState>;

/** Which pages a build makes: every page, or those of `targetIds` (with their models' and every page that lists targets). */
export type BuildScope = { targetIds: readonly string[]; runBytes: Readonly<Record<string, number>> } | undefined;

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
  batchItemFailures: BatchItemFailure[];
}

const consoleLog: Log = { info: (m) => console.log(m), warn: (m) => console.warn(m) };

/**
 * Validates the batch, then publishes once for all of it. A malformed message is reported (so it
 * ends in the dead-letter queue) but does not stop the publish: the store, not the message, says
 * what to publish.
 */
export async function publishBatch(records: readonly QueueRecord[], deps: PublishDeps): Promise<PublishSummary> {
  const log = deps.log ?? consoleLog;
  const batchItemFailures: BatchItemFailure[] = [];
  let messages = 0;
  // The targets the batch names; null once a message names none (every page is rebuilt then).
  let targets: Set<string> | null = new Set();
  for (const record of records) {
    const parsed = parseMessage(PublishMessage, record.body);
    if (parsed.ok) {
      messages++;
      if (parsed.message.targets === undefined) targets = null;
      else for (const t of parsed.message.targets) targets?.add(t);
      continue;
    }
    log.warn(
      `rejected publish message ${record.messageId}: malformed: ${parsed.problem}; body ${excerpt(record.body)}`,
    );
    batchItemFailures.push({ itemIdentifier: record.messageId });
  }
  // A batch with no valid message (a manual invoke) names no targets either.
  const result = await publish(deps, messages > 0 && targets ? [...targets] : null);
  return { messages, rejected: batchItemFailures.length, ...result, batchItemFailures };
}

async function readState(store: Store, log: Log): Promise<PublishState | null> {
  const body = await store.get(PUBLISH_STATE_KEY);
  if (body === null) return null;
  const parsed = PublishState.safeParse(JSON.parse(body));
  if (parsed.success) return parsed.data;
  log.warn(`${PUBLISH_STATE_KEY} is not a publish state; rebuilding every page`);
  return null;
}

async function writeState(store: Store, state: PublishState): Promise<void> {
  await store.put(PUBLISH_STATE_KEY, JSON.stringify(state), { contentType: "application/json" });
}

/**
 * Checks, delivers, builds (every page, or after runs of `targets` only theirs and the pages that
 * list targets), uploads what changed, deletes what is gone after a full rebuild, invalidates.
 */
export async function publish(
  deps: PublishDeps,
  targets: readonly string[] | null = null,
): Promise<{ alerts: number; full: boolean; files: number; deleted: number; invalidated: boolean }> {
  const log = deps.log ?? consoleLog;
  const warn = (m: string) => log.warn(m);
  const { alerts } = await evaluateStore({
    store: deps.store,
    index: deps.index,
    now: deps.now,
    siteUrl: deps.siteUrl,
    warn,
  });
  await deliver(alerts, { ledger: deps.ledger, channels: deps.channels, warn });
  const before = deps.siteVersion === undefined ? null : await readState(deps.store, log);
  const full = before === null || before.siteVersion !== deps.siteVersion || before.fullPending || targets === null;
  const pendingTargets = full ? [] : [...new Set([...(before?.pendingTargets ?? []), ...targets])].sort();
  const siteVersion = deps.siteVersion ?? "";
  const files = before?.files ?? {};
  const runBytes = before?.runBytes ?? {};
  // Recorded before anything is uploaded: a publish that dies from here on is finished by the next.
  if (deps.siteVersion !== undefined)
    await writeState(deps.store, { siteVersion, fullPending: full, pendingTargets, runBytes, files });
  const built = await deps.buildSite(deps.outDir, deps.now, full ? undefined : { targetIds: pendingTargets, runBytes });
  const uploaded = await uploadSite(deps.outDir, deps.siteBucket, { deleteGone: full, known: files });
  if (deps.siteVersion !== undefined)
    await writeState(deps.store, {
      siteVersion,
      fullPending: false,
      pendingTargets: [],
      runBytes: built.runBytes,
      files: uploaded.hashes,
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
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(outDir, path).split(sep).join("/");
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
