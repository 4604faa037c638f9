/**
 * @module The scheduled path's queue messages and how a batch of them is read: every body is parsed
 * and validated here; a bad one becomes a reported failure (the queue retries it, then dead-letters
 * it), never a silent drop.
 */
import { z } from "zod";

/** Where a continued sweep picks up: written by the invocation that ran out of time. */
export const SweepContinuation = z.strictObject({
  /** The run being continued (the slot's run id). */
  runId: z.string().regex(/^[A-Za-z0-9._-]+$/),
  /** Index into the workload's concurrency list of the first level still to run. */
  levelIndex: z.number().int().positive(),
  /** Which invocation of the run this message starts: 2 for the first continuation. */
  invocation: z.number().int().min(2),
  /** The claim's owner that sent this message; the next invocation takes the claim over from it. */
  fromOwner: z.string().min(1),
});
export type SweepContinuation = z.infer<typeof SweepContinuation>;

/** One (target, scenario) to sweep for one schedule slot; with `continuation`, the rest of a run begun earlier. */
export const SweepMessage = z.strictObject({
  targetId: z.string().min(1),
  /** The scenario to sweep; absent means `chat` (so messages queued before scenarios still parse). */
  scenario: z.string().min(1).optional(),
  /** The schedule slot (ISO 8601 time): with the target and scenario it names the run, so a duplicate finds the claim. */
  slot: z.iso.datetime({ offset: true }),
  continuation: SweepContinuation.optional(),
});
export type SweepMessage = z.infer<typeof SweepMessage>;

/**
 * What the schedule invokes `plan` with. `time` is the slot: the moment the schedule was due (ISO 8601),
 * which EventBridge Scheduler writes in for its `<aws.scheduler.scheduled-time>` context attribute
 * (sst.config.ts) and repeats on every delivery of that slot. A manual invoke may leave it out.
 */
export const PlanEvent = z.object({
  time: z.iso.datetime({ offset: true }).optional(),
});
export type PlanEvent = z.infer<typeof PlanEvent>;

/** Runs stored by a sweep invocation: the publish function rebuilds after them. */
export const PublishMessage = z.strictObject({
  runs: z.array(z.string().min(1)).min(1),
  /**
   * The targets of those runs: publish rebuilds their pages and every page that lists targets, not
   * the others. Absent (a message sent by hand, or queued before targets were named): every page.
   */
  targets: z.array(z.string().min(1)).optional(),
});
export type PublishMessage = z.infer<typeof PublishMessage>;

/** One received message: the queue's id for it (reported back on failure) and its body. */
export interface QueueRecord {
  messageId: string;
  body: string;
}

/** SQS's partial batch response: the messages to retry (and, after the queue's retries, dead-letter). */
export interface BatchItemFailure {
  itemIdentifier: string;
}

/** A message as sent: FIFO queues need a group and a deduplication id. */
export interface OutgoingMessage {
  body: string;
  /** FIFO group: messages of one group are delivered in order, one at a time. */
  groupId?: string;
  /** FIFO deduplication id: a second send with it within five minutes is dropped by the queue. */
  deduplicationId?: string;
}

/** Where messages are sent (the sweep and publish queues). */
export interface MessageQueue {
  /** Sends every message or throws. */
  send(...messages: OutgoingMessage[]): Promise<void>;
}

/** A body parsed by `schema`, or why it could not be. */
export type Parsed<T> = { ok: true; message: T } | { ok: false; problem: string };

/** Parses a JSON body with a schema; the problem names the path in the message. */
export function parseMessage<T>(schema: z.ZodType<T>, body: string): Parsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, problem: "body is not JSON" };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
  return { ok: false, problem: problems.join("; ") };
}

/** Body of a message, cut for a log line (a malformed body may be anything, of any size). */
export function excerpt(body: string, maxChars = 200): string {
  return body.length > maxChars ? `${body.slice(0, maxChars)}...` : body;
}
