/**
 * @module The verdicts of each indexed run against its model's reference route, recorded on its index
 * entry once, so regression detection and the site read a route's verdicts run by run without the
 * run documents: the same-model verdict of a canary run (`sameModel`, the `model_change` alert) and
 * the tool-call verdict of a run with a tool-call phase (`toolCallsVerdict`). A run is judged against
 * what its model's routes had run by its start: each route's latest run of that kind started at or
 * before it, the reference's included. Later runs never change an earlier verdict.
 */
import { modelKeyOf } from "../config/index.ts";
import type { RunDocument } from "../run/index.ts";
import { type SameModelOptions, sameModelVerdicts } from "../same-model/index.ts";
import { readRun, type Store } from "../store/index.ts";
import { type ToolCallsVerdictOptions, toolCallsVerdicts } from "../tool-calls/verdict.ts";
import type { RunIndex, RunIndexEntry } from "./index.ts";

const byStart = (a: RunIndexEntry, b: RunIndexEntry) =>
  a.startedAt.localeCompare(b.startedAt) || a.key.localeCompare(b.key);

/** What a kind of verdict needs: which runs it judges, whether one is judged, how to judge, where it goes. */
interface Judgement {
  /** Words for warnings: "same model". */
  name: string;
  /** The run took part (it has the phase this verdict reads). */
  has: (e: RunIndexEntry) => boolean;
  judged: (e: RunIndexEntry) => boolean;
  /** The verdict of every target of one model's runs. */
  verdicts: (runs: RunDocument[]) => Record<string, unknown>;
  with: (e: RunIndexEntry, verdict: never) => RunIndexEntry;
}

/**
 * Judges every run of `entries` that takes part and has no verdict yet, records the verdicts on the
 * index and returns the entries with them. A run document that cannot be read is reported to `warn`,
 * and its run is left unjudged (a later evaluation tries again).
 */
async function judgeRuns(
  options: { store: Store; index: RunIndex; entries: readonly RunIndexEntry[]; warn?: (message: string) => void },
  judgement: Judgement,
): Promise<RunIndexEntry[]> {
  const pending = options.entries.filter((e) => judgement.has(e) && !judgement.judged(e));
  if (pending.length === 0) return [...options.entries];
  const docs = new Map<string, Promise<RunDocument | null>>();
  const read = (key: string) => {
    let doc = docs.get(key);
    if (!doc) {
      doc = readRun(options.store, key).catch((error: Error) => {
        options.warn?.(`${judgement.name}: cannot read ${key}: ${error.message}`);
        return null;
      });
      docs.set(key, doc);
    }
    return doc;
  };
  const taking = options.entries.filter(judgement.has).sort(byStart);
  const judged = new Map<string, RunIndexEntry>();
  for (const entry of [...pending].sort(byStart)) {
    const model = modelKeyOf(entry);
    const before = taking.filter((e) => modelKeyOf(e) === model && byStart(e, entry) <= 0);
    // The reference is the target whose latest such run by then was made as the reference.
    const latest = new Map<string, RunIndexEntry>();
    for (const e of before) latest.set(e.targetId, e);
    const runs = await Promise.all([...latest.values()].map((e) => read(e.key)));
    if (runs.some((r) => r === null)) continue;
    const verdict = judgement.verdicts(runs as RunDocument[])[entry.targetId];
    if (verdict) judged.set(entry.key, judgement.with(entry, verdict as never));
  }
  if (judged.size > 0) await options.index.record(...judged.values());
  return options.entries.map((e) => judged.get(e.key) ?? e);
}

/** Judges every canary run of `entries` that has no same-model verdict yet (`judgeRuns`). */
export function judgeCanaryRuns(options: {
  store: Store;
  index: RunIndex;
  entries: readonly RunIndexEntry[];
  warn?: (message: string) => void;
  sameModel?: SameModelOptions;
}): Promise<RunIndexEntry[]> {
  return judgeRuns(options, {
    name: "same model",
    has: (e) => e.canary !== undefined,
    judged: (e) => e.sameModel !== undefined,
    verdicts: (runs) => sameModelVerdicts(runs, options.sameModel),
    with: (e, sameModel) => ({ ...e, sameModel }),
  });
}

/** Judges every run of `entries` with a tool-call phase that has no tool-call verdict yet (`judgeRuns`). */
export function judgeToolCallRuns(options: {
  store: Store;
  index: RunIndex;
  entries: readonly RunIndexEntry[];
  warn?: (message: string) => void;
  toolCalls?: ToolCallsVerdictOptions;
}): Promise<RunIndexEntry[]> {
  return judgeRuns(options, {
    name: "tool calls",
    has: (e) => e.toolCalls !== undefined,
    judged: (e) => e.toolCallsVerdict !== undefined,
    verdicts: (runs) => toolCallsVerdicts(runs, options.toolCalls),
    with: (e, toolCallsVerdict) => ({ ...e, toolCallsVerdict }),
  });
}
