/** @module The queue port on SQS (the sweep and publish queues; FIFO groups and deduplication when given). */
import { SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { KneeboardError } from "../errors/index.ts";
import type { MessageQueue, OutgoingMessage } from "../scheduled/messages.ts";

export interface SqsQueueOptions {
  queueUrl: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_SQS`). */
  client?: SQSClient;
}

/** SendMessageBatch takes at most 10 entries. */
const BATCH_SIZE = 10;

/** Sends messages to one SQS queue, ten per request; any entry the queue refuses fails the send. */
export class SqsQueue implements MessageQueue {
  private readonly client: SQSClient;
  readonly queueUrl: string;

  constructor(options: SqsQueueOptions) {
    this.client = options.client ?? new SQSClient({});
    this.queueUrl = options.queueUrl;
  }

  async send(...messages: OutgoingMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += BATCH_SIZE) {
      const out = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: messages.slice(i, i + BATCH_SIZE).map((m, j) => ({
            Id: String(j),
            MessageBody: m.body,
            MessageGroupId: m.groupId,
            MessageDeduplicationId: m.deduplicationId,
          })),
        }),
      );
      // A batch answers 200 even when entries fail: each failure is listed, and must not pass silently.
      const failed = out.Failed ?? [];
      if (failed.length > 0) {
        const why = failed.map((f) => `${f.Id}: ${f.Code} ${f.Message ?? ""}`.trim()).join("; ");
        throw new KneeboardError(`${failed.length} messages were refused by ${this.queueUrl}: ${why}`);
      }
    }
  }
}
