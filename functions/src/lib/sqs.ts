/** @module The shapes of Lambda's SQS event and context the handlers read (no types package needed for two fields). */
import type { QueueRecord } from "@kneeboard/core/scheduled";

/** An SQS event: each record's id (for partial batch failures) and body. */
export interface SqsEvent {
  Records?: { messageId: string; body: string }[];
}

/** The part of Lambda's context a handler uses. */
export interface LambdaContext {
  getRemainingTimeInMillis(): number;
}

/** The records as the use cases take them. */
export function records(event: SqsEvent | undefined): QueueRecord[] {
  return (event?.Records ?? []).map((r) => ({ messageId: r.messageId, body: r.body }));
}
