/**
 * @module Publishing after sweeps: check for regressions, deliver alerts, rebuild the site, upload it
 * to the site bucket and delete what the new build no longer has, then invalidate the CDN. The site build is passed in (the site
 * package depends on the core, not the other way round).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
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

export interface PublishDeps {
  store: Store;
  index: RunIndex;
  ledger: AlertLedger;
  channels: Channel[];
  /** Builds the whole site into outDir (the site package's `buildSite`). */
  buildSite: (outDir: string, now: string) => Promise<unknown>;
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
  /** Files uploaded to the site bucket. */
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
  for (const record of records) {
    const parsed = parseMessage(PublishMessage, record.body);
    if (parsed.ok) {
      messages++;
      continue;
    }
    log.warn(
      `rejected publish message ${record.messageId}: malformed: ${parsed.problem}; body ${excerpt(record.body)}`,
    );
    batchItemFailures.push({ itemIdentifier: record.messageId });
  }
  const result = await publish(deps);
  return { messages, rejected: batchItemFailures.length, ...result, batchItemFailures };
}

/** Checks, delivers, builds, uploads, deletes what is gone, invalidates. */
export async function publish(
  deps: PublishDeps,
): Promise<{ alerts: number; files: number; deleted: number; invalidated: boolean }> {
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
  await deps.buildSite(deps.outDir, deps.now);
  const { files, deleted } = await uploadSite(deps.outDir, deps.siteBucket);
  if (deps.cdn) await deps.cdn.invalidate(["/*"], deps.now);
  log.info(`published: ${alerts.length} alerts, ${files} files uploaded, ${deleted} deleted`);
  return { alerts: alerts.length, files, deleted, invalidated: deps.cdn !== undefined };
}

/**
 * Uploads every file of the built site under its relative path, with its served content type, except
 * run documents the bucket already holds; then deletes what the bucket holds and the build does not
 * (a page of a target no longer listed), after the upload so no page is missing meanwhile. Run
 * documents are never deleted: a stored run stays downloadable. Returns the counts of both.
 */
export async function uploadSite(outDir: string, bucket: SiteBucket): Promise<{ files: number; deleted: number }> {
  const before = await bucket.list("");
  const uploaded = new Set(before.filter((k) => k.startsWith(SITE_RUNS_PREFIX)));
  const built = new Set<string>();
  let files = 0;
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(outDir, path).split(sep).join("/");
    built.add(key);
    if (key.startsWith(SITE_RUNS_PREFIX) && uploaded.has(key)) continue;
    await bucket.put(key, await readFile(path), contentTypeOf(key));
    files++;
  }
  const gone = before.filter((k) => !built.has(k) && !k.startsWith(SITE_RUNS_PREFIX));
  if (gone.length) await bucket.delete(gone);
  return { files, deleted: gone.length };
}
