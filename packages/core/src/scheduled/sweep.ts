/**
 * @module Sweeping one schedule slot from a queue message, within one invocation's time: claim the
 * run (or take it over from the invocation before), run the levels that fit, then either store the
 * run or save the finished levels and send a continuation that resumes at the next level.
 */
import { type RunClaims, slotRunId } from "../claims/index.ts";
import {
  type Config,
  canaryFor,
  DEFAULT_SCENARIO,
  scenariosOf,
  type Target,
  toolCallsFor,
  workloadFor,
} from "../config/index.ts";
import { KneeboardError } from "../errors/index.ts";
import { DEFAULT_MAX_INVOCATIONS } from "../plan/index.ts";
import type { RunDocument } from "../run/index.ts";
import { type RunIndex, saveRun } from "../run-index/index.ts";
import { type Scheduler, systemScheduler } from "../scheduler/index.ts";
import type { Store } from "../store/index.ts";
import { runSweep } from "../sweep/index.ts";
import type { Traces } from "../trace/index.ts";
import {
  type BatchItemFailure,
  excerpt,
  type MessageQueue,
  type PublishMessage,
  parseMessage,
  type QueueRecord,
  SweepMessage,
} from "./messages.ts";
import type { PendingRuns } from "./ports.ts";

/** Where the use cases write their lines (a Lambda's console, a test's array). */
export interface Log {
  info(message: string): void;
  warn(message: string): void;
}

/** Stop this long before the invocation's end, so the finished levels are saved and a message sent. */
export const DEFAULT_MARGIN_MS = 30_000;
/** Invocations one run may use (the first and its continuations) before it is stored partial: `plan` counts against it. */
export { DEFAULT_MAX_INVOCATIONS };
/** The lease a continuing run keeps between invocations: until the next one takes it over. */
export const DEFAULT_HANDOVER_LEASE_MS = 15 * 60_000;

export interface SweepDeps {
  config: Config;
  /** The windows of the traces the config replays (`loadTraces`, from the files deployed beside it). */
  traces?: Traces;
  store: Store;
  index: RunIndex;
  claims: RunClaims;
  pending: PendingRuns;
  sweepQueue: MessageQueue;
  publishQueue: MessageQueue;
  /** This invocation's claim owner (unique per invocation, e.g. the Lambda request id). */
  owner: string;
  /** The invocation's time left, ms (Lambda's `getRemainingTimeInMillis`). */
  remainingMs: () => number;
  /** Now, ms since the epoch, for claim leases. Default `Date.now`. */
  nowMs?: () => number;
  /** The target's API key; default none. */
  apiKeyFor?: (target: Target) => string | undefined;
  /** Default DEFAULT_MARGIN_MS. */
  marginMs?: number;
  /** Default DEFAULT_MAX_INVOCATIONS. */
  maxInvocations?: number;
  /** Default DEFAULT_HANDOVER_LEASE_MS. */
  handoverLeaseMs?: number;
  /** The sweep's scheduler; the deadline is on its clock. Default the system scheduler. */
  scheduler?: Scheduler;
  log?: Log;
}

/** What one invocation did with its batch; `batchItemFailures` is SQS's partial batch response. */
export interface SweepSummary {
  /** Runs stored (complete or partial) by this invocation. */
  runs: string[];
  /** Runs saved so far and continued in a follow-up message. */
  continued: string[];
  /** Messages for runs another invocation holds or has finished (duplicate deliveries). */
  duplicates: number;
  /** Malformed messages, unknown targets, inconsistent continuations: logged and reported. */
  rejected: number;
  /** Messages whose processing threw: logged and reported, so the queue retries them. */
  failed: number;
  batchItemFailures: BatchItemFailure[];
}

type Outcome =
  | { kind: "stored"; runId: string; targetId: string }
  | { kind: "continued"; runId: string }
  | { kind: "duplicate" }
  | { kind: "rejected"; problem: string };

const consoleLog: Log = { info: (m) => console.log(m), warn: (m) => console.warn(m) };

/**
 * Sweeps each message of a batch in turn. A bad message or a failure is logged, counted and
 * reported as a batch item failure, never dropped; the others go on. Stored runs are announced to
 * the publish queue in one message. On a FIFO queue keep batches of one (as the deployment does): a
 * failure reported mid-batch would otherwise let later messages of its group overtake it.
 */
export async function sweepBatch(records: readonly QueueRecord[], deps: SweepDeps): Promise<SweepSummary> {
  const log = deps.log ?? consoleLog;
  const summary: SweepSummary = {
    runs: [],
    continued: [],
    duplicates: 0,
    rejected: 0,
    failed: 0,
    batchItemFailures: [],
  };
  const targets = new Set<string>();
  for (const record of records) {
    let outcome: Outcome;
    try {
      outcome = await sweepRecord(record, deps, log);
    } catch (error) {
      log.warn(`sweep message ${record.messageId} failed: ${(error as Error).message}`);
      summary.failed++;
      summary.batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    if (outcome.kind === "stored") {
      summary.runs.push(outcome.runId);
      targets.add(outcome.targetId);
    } else if (outcome.kind === "continued") summary.continued.push(outcome.runId);
    else if (outcome.kind === "duplicate") summary.duplicates++;
    else {
      log.warn(`rejected sweep message ${record.messageId}: ${outcome.problem}; body ${excerpt(record.body)}`);
      summary.rejected++;
      summary.batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  if (summary.runs.length > 0) {
    const message: PublishMessage = { runs: summary.runs, targets: [...targets] };
    await deps.publishQueue.send({ body: JSON.stringify(message) });
  }
  return summary;
}

async function sweepRecord(record: QueueRecord, deps: SweepDeps, log: Log): Promise<Outcome> {
  const parsed = parseMessage(SweepMessage, record.body);
  if (!parsed.ok) return { kind: "rejected", problem: `malformed: ${parsed.problem}` };
  const message = parsed.message;
  const target = deps.config.targets.find((t) => t.id === message.targetId);
  if (!target) return { kind: "rejected", problem: `unknown target ${JSON.stringify(message.targetId)}` };
  const scenario = message.scenario ?? DEFAULT_SCENARIO;
  const known = scenariosOf(deps.config, target);
  if (!known.includes(scenario))
    return {
      kind: "rejected",
      problem: `target ${target.id} has no scenario ${JSON.stringify(scenario)} (its scenarios: ${known.join(", ")})`,
    };
  const runId = slotRunId(target.id, message.slot, scenario);
  const continuation = message.continuation;
  if (continuation && continuation.runId !== runId) {
    return { kind: "rejected", problem: `continuation of ${continuation.runId}, but the slot's run is ${runId}` };
  }

  const nowMs = deps.nowMs ?? Date.now;
  const lease = { targetId: target.id, owner: deps.owner, nowMs: nowMs(), ttlMs: deps.remainingMs() };
  const claim = continuation
    ? await deps.claims.handOver(runId, continuation.fromOwner, lease)
    : await deps.claims.claim(runId, lease);
  if (claim !== "claimed") {
    log.info(
      `run ${runId} of ${label(target, scenario)} is ${claim === "done" ? "done" : "held by another invocation"}: skipped`,
    );
    return { kind: "duplicate" };
  }
  try {
    return await sweepClaimed({ deps, log, target, scenario, slot: message.slot, runId, continuation });
  } catch (error) {
    // Give the claim back to whoever the message took it from, so the queue's retry can take it again.
    const giveBack = continuation
      ? deps.claims.handOver(runId, deps.owner, { ...lease, owner: continuation.fromOwner, nowMs: nowMs(), ttlMs: 0 })
      : deps.claims.release(runId, deps.owner);
    await giveBack.catch((e: Error) => log.warn(`could not give back the claim of ${runId}: ${e.message}`));
    throw error;
  }
}

interface Claimed {
  deps: SweepDeps;
  log: Log;
  target: Target;
  scenario: string;
  slot: string;
  runId: string;
  continuation: SweepMessage["continuation"];
}

/** The earlier levels to resume from: the continuation's, or a crashed attempt's saved levels. */
async function previousLevels(c: Claimed): Promise<RunDocument | undefined> {
  const saved = await c.deps.pending.load(c.runId);
  const wanted = c.continuation?.levelIndex;
  if (wanted === undefined) {
    if (saved) c.log.info(`run ${c.runId}: resuming from ${saved.levels.length} levels an earlier attempt saved`);
    return saved ?? undefined;
  }
  if (!saved || saved.levels.length < wanted) {
    throw new KneeboardError(
      `continuation of ${c.runId} at level ${wanted} finds ${saved?.levels.length ?? 0} saved levels`,
    );
  }
  const levels = saved.levels.slice(0, wanted);
  const kept = new Set(levels.map((l) => l.level));
  return { ...saved, levels, samples: saved.samples.filter((s) => kept.has(s.level)) };
}

async function sweepClaimed(c: Claimed): Promise<Outcome> {
  const { deps, log, target, scenario, runId } = c;
  const clock = deps.scheduler ?? systemScheduler;
  const maxInvocations = deps.maxInvocations ?? DEFAULT_MAX_INVOCATIONS;
  const invocation = c.continuation?.invocation ?? 1;
  const previous = await previousLevels(c);
  const startLevelIndex = previous?.levels.length ?? 0;
  const deadlineMs = clock.now() + deps.remainingMs() - (deps.marginMs ?? DEFAULT_MARGIN_MS);
  const workload = workloadFor(deps.config, target, scenario);
  const doc = await runSweep({
    target,
    workload,
    canary: canaryFor(deps.config.targets, target, workload),
    toolCalls: toolCallsFor(workload),
    scenario,
    traces: deps.traces,
    apiKey: deps.apiKeyFor?.(target),
    runId,
    scheduler: clock,
    deadlineMs,
    // A level whose streams one core cannot carry runs on several worker threads of this invocation.
    threads: "auto",
    startLevelIndex,
    previous,
    // Saved after every level, so even an invocation that dies hard leaves its finished levels.
    onLevel: (partial) => deps.pending.save(partial),
  });
  const stoppedByDeadline = doc.status === "partial" && clock.now() >= deadlineMs;
  if (stoppedByDeadline) {
    const progressed = doc.levels.length > startLevelIndex;
    if (progressed && invocation < maxInvocations) return continueRun(c, doc, invocation + 1);
    doc.partialReason = progressed
      ? `${doc.partialReason}; the continuation budget of ${maxInvocations} invocations is spent`
      : `${doc.partialReason}; no level finished within one invocation`;
  }
  // The document is written before the index lists it: no reader sees a half-run.
  await saveRun(deps.store, deps.index, doc);
  await deps.claims.complete(runId, deps.owner);
  await deps.pending.clear(runId);
  log.info(
    `run ${runId} of ${label(target, scenario)}: ${doc.status}, ${doc.levels.length} levels, invocation ${invocation}`,
  );
  return { kind: "stored", runId, targetId: target.id };
}

/** Renews the claim's lease, then asks for the next invocation at the next level. */
async function continueRun(c: Claimed, doc: RunDocument, invocation: number): Promise<Outcome> {
  const { deps, log, target, scenario, runId } = c;
  const renewed = await deps.claims.claim(runId, {
    targetId: target.id,
    owner: deps.owner,
    nowMs: (deps.nowMs ?? Date.now)(),
    ttlMs: deps.handoverLeaseMs ?? DEFAULT_HANDOVER_LEASE_MS,
  });
  if (renewed !== "claimed") {
    log.warn(`run ${runId}: the claim was lost before continuing (${renewed}); not continued`);
    return { kind: "duplicate" };
  }
  const message: SweepMessage = {
    targetId: target.id,
    ...(scenario === DEFAULT_SCENARIO ? {} : { scenario }),
    slot: c.slot,
    continuation: { runId, levelIndex: doc.levels.length, invocation, fromOwner: deps.owner },
  };
  await deps.sweepQueue.send({
    body: JSON.stringify(message),
    groupId: target.id,
    deduplicationId: `${runId}-${invocation}`,
  });
  log.info(
    `run ${runId} of ${label(target, scenario)}: ${doc.levels.length} levels saved, continues as invocation ${invocation}`,
  );
  return { kind: "continued", runId };
}

/** `llama-8b` for chat, `llama-8b (rag)` for another scenario, in log lines. */
function label(target: Target, scenario: string): string {
  return scenario === DEFAULT_SCENARIO ? target.id : `${target.id} (${scenario})`;
}
