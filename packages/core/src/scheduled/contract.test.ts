/**
 * @module The scheduled path's port contracts on the in-memory implementations. The AWS
 * implementations run the same contracts in aws/scheduled.contract.test.ts.
 */

import {
  pendingRunsContract,
  queueContract,
  rebuildLedgerContract,
  siteBucketContract,
} from "../../testing/scheduled.contract.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { MemoryPendingRuns, MemoryQueue, MemorySiteBucket } from "./ports.ts";
import { MemoryRebuildLedger } from "./rebuild.ts";

const doc = syntheticRun({
  targetId: "t-pending",
  runId: "20260101T060000Z-abc",
  startedAt: "2026-01-01T06:00:00Z",
  singleStreamTokensPerSecond: 50,
  ttftMs: 250,
  saturationStreams: 4,
  concurrency: [1, 2, 4],
});

queueContract("MemoryQueue", async () => {
  const queue = new MemoryQueue();
  return { queue, fifo: false, receive: async () => queue.take() };
});

siteBucketContract("MemorySiteBucket", async () => {
  const bucket = new MemorySiteBucket();
  return { bucket, read: async (key) => bucket.files.get(key) ?? null };
});

pendingRunsContract("MemoryPendingRuns", async () => new MemoryPendingRuns(), doc);

rebuildLedgerContract("MemoryRebuildLedger", async () => new MemoryRebuildLedger());
