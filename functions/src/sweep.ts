/**
 * @module `sweep`: each queue message is one target's slot (or the rest of one), swept within this
 * invocation's time; a bad message is reported back to SQS so it ends in the dead-letter queue.
 */
import { randomUUID } from "node:crypto";
import { type SweepSummary, sweepBatch } from "@kneeboard/core/scheduled";
import { sweepDeps } from "./lib/deps.ts";
import { type LambdaContext, records, type SqsEvent } from "./lib/sqs.ts";

export async function handler(event: SqsEvent, context: LambdaContext): Promise<SweepSummary> {
  const summary = await sweepBatch(records(event), {
    ...sweepDeps(),
    // Unique per invocation: a continuation's next invocation must take the claim over, not share it.
    owner: randomUUID(),
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
  const { batchItemFailures, ...counts } = summary;
  console.log(JSON.stringify({ sweep: counts, failures: batchItemFailures.length }));
  return summary;
}
