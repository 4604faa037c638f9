/**
 * @module The same-model verdict of each indexed canary run, recorded on its index entry once, so
 * regression detection reads a route's verdicts run by run (the `model_change` alert) without the
 * run documents. A run is judged as the site judges a target's latest run (`sameModelVerdicts`),
 * against what its model's routes had run by its start: each route's latest canary run started at
 * or before it, the reference's included. Later runs never change an earlier verdict.
 */
import { modelKeyOf } from "../config/index.ts";
import type { RunDocument } from "../run/index.ts";
import { type SameModelOptions, sameModelVerdicts } from "../same-model/index.ts";
import { readRun, type Store } from "../store/index.ts";
import type { RunIndex, RunIndexEntry } from "./index.ts";

const byStart = (a: RunIndexEntry, b: RunIndexEntry) =>
  a.startedAt.localeCompare(b.startedAt) || a.key.localeCompare(b.key);

/**
 * Judges every canary run of `entries` that has no verdict yet, records the verdicts on the index
 * and returns the entries with them. A run document that cannot be read is reported to `warn`, and
 * its run is left unjudged (a later evaluation tries again).
 */
export async function judgeCanaryRuns(options: {
  store: Store;
  index: RunIndex;
  entries: readonly RunIndexEntry[];
  warn?: (message: string) => void;
  sameModel?: SameModelOptions;
}): Promise<RunIndexEntry[]> {
  const pending = options.entries.filter((e) => e.canary && !e.sameModel);
  if (pending.length === 0) return [...options.entries];
  const docs = new Map<string, Promise<RunDocument | null>>();
  const read = (key: string) => {
    let doc = docs.get(key);
    if (!doc) {
      doc = readRun(options.store, key).catch((error: Error) => {
        options.warn?.(`same model: cannot read ${key}: ${error.message}`);
        return null;
      });
      docs.set(key, doc);
    }
    return doc;
  };
  const canaryRuns = options.entries.filter((e) => e.canary).sort(byStart);
  const judged = new Map<string, RunIndexEntry>();
  for (const entry of [...pending].sort(byStart)) {
    const model = modelKeyOf(entry);
    const before = canaryRuns.filter((e) => modelKeyOf(e) === model && byStart(e, entry) <= 0);
    // The reference is the target whose latest canary run by then was made as the reference.
    const latest = new Map<string, RunIndexEntry>();
    for (const e of before) latest.set(e.targetId, e);
    const runs = await Promise.all([...latest.values()].map((e) => read(e.key)));
    if (runs.some((r) => r === null)) continue;
    const verdict = sameModelVerdicts(runs as RunDocument[], options.sameModel)[entry.targetId];
    if (verdict) judged.set(entry.key, { ...entry, sameModel: verdict });
  }
  if (judged.size > 0) await options.index.record(...judged.values());
  return options.entries.map((e) => judged.get(e.key) ?? e);
}
