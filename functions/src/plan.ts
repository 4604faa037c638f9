/** @module `plan`, on the schedule: one queue message per target for this schedule slot. */
import { SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { slotRunId } from "@kneeboard/core/claims";
import { deployedConfig, link } from "./lib/deps.ts";

export interface SweepMessage {
  targetId: string;
  /** The schedule slot (ISO time): with the target it names the run, so a duplicate finds the claim. */
  slot: string;
}

const sqs = new SQSClient({});

export async function handler(event: { time?: string }): Promise<{ planned: number }> {
  const config = deployedConfig();
  const slot = new Date(event.time ?? Date.now()).toISOString();
  const queueUrl = link("SweepQueue").url as string;
  const messages = config.targets.map((t) => ({ targetId: t.id, slot }) satisfies SweepMessage);
  for (let i = 0; i < messages.length; i += 10) {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        // FIFO groups per target: one target's sweeps never overlap; different targets run in parallel.
        Entries: messages.slice(i, i + 10).map((m, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify(m),
          MessageGroupId: m.targetId,
          MessageDeduplicationId: slotRunId(m.targetId, m.slot),
        })),
      }),
    );
  }
  return { planned: messages.length };
}
