/**
 * @module The scheduled use cases of the AWS deployment, behind ports so they run and test without
 * AWS: fan a slot out (one sweep message per (target, scenario)), sweep one slot (continuing past an invocation's
 * end), publish (alerts, site upload, CDN; a full rebuild fanned out over the publish queue). The handlers in `functions/` only wire these.
 */

export { fanOutSlot, planTime, type SlotSweep, slotSweeps, sweepMessageFor } from "./fanout.ts";
export {
  type BatchItemFailure,
  excerpt,
  type MessageQueue,
  type OutgoingMessage,
  type Parsed,
  PlanEvent,
  PublishMessage,
  parseMessage,
  type QueueRecord,
  SweepContinuation,
  SweepMessage,
} from "./messages.ts";
export {
  type Cdn,
  MemoryCdn,
  MemoryPendingRuns,
  MemoryQueue,
  MemorySiteBucket,
  type PendingRuns,
  parsePending,
  pendingKey,
  type SiteBucket,
} from "./ports.ts";
export {
  type PublishDeps,
  type PublishSummary,
  publish,
  publishBatch,
  SITE_RUNS_PREFIX,
  uploadSite,
} from "./publish.ts";
export {
  BATCH_BUILD_BUDGET_SECONDS,
  builtFiles,
  FAN_OUT_TARGETS,
  type FanOutDeps,
  FULL_BUILD_SECONDS_PER_TARGET,
  MemoryRebuildLedger,
  PageBatchMessage,
  PUBLISH_QUEUE_BATCH_SIZE,
  REBUILD_STAGING_PREFIX,
  type RebuildLedger,
  targetsPerBatch,
} from "./rebuild.ts";
export {
  DEFAULT_HANDOVER_LEASE_MS,
  DEFAULT_MARGIN_MS,
  DEFAULT_MAX_INVOCATIONS,
  type Log,
  type SweepDeps,
  type SweepSummary,
  sweepBatch,
} from "./sweep.ts";
