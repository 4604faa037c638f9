/**
 * @module `plan` invoked as the schedule invokes it (sst.config.ts's event, filled in as EventBridge
 * Scheduler fills it), against a local FIFO queue (fauxqs): a duplicate invocation of a slot puts
 * nothing more on the queue.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { KneeboardError } from "@kneeboard/core/errors";
import { SweepMessage } from "@kneeboard/core/scheduled";
import {
  type FauxqsHandle,
  fauxqsClientConfig,
  interceptLocalhostDns,
  startFauxqs,
} from "@kneeboard/test-support/fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSstConfig, THREE_SWEEPS_CONFIG } from "../testing/sst.ts";
import { handler } from "./plan.ts";

/** The context attribute EventBridge Scheduler replaces with the time the schedule was due. */
const SCHEDULED_TIME = "<aws.scheduler.scheduled-time>";

let fauxqs: FauxqsHandle;
let sqs: SQSClient;
let queueUrl: string;
let dir: string;
/** The event sst.config.ts has the schedule send, before Scheduler fills it in. */
let scheduleEvent: unknown;
let restoreDns: (() => void) | undefined;
const savedEnv: Record<string, string | undefined> = {};

/** What the function receives for a slot due at `time`: the schedule's input, its context attribute filled in. */
const delivered = (time: string): unknown => JSON.parse(JSON.stringify(scheduleEvent).replaceAll(SCHEDULED_TIME, time));

/** Every message on the queue, each deleted once read. */
async function drain(): Promise<SweepMessage[]> {
  const bodies: SweepMessage[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    const batch = out.Messages ?? [];
    if (batch.length === 0) return bodies;
    for (const m of batch) {
      bodies.push(SweepMessage.parse(JSON.parse(m.Body as string)));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

/** `target/scenario` of each message, sorted. */
const sweeps = (messages: SweepMessage[]) => messages.map((m) => `${m.targetId}/${m.scenario ?? "chat"}`).sort();

beforeAll(async () => {
  fauxqs = await startFauxqs();
  // fauxqs's queue URLs name `sqs.<region>.localhost`: its DNS patch keeps them on loopback.
  restoreDns = interceptLocalhostDns();
  sqs = new SQSClient(fauxqsClientConfig(fauxqs.endpoint));
  queueUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: "SweepQueue.fifo",
        Attributes: { FifoQueue: "true", ContentBasedDeduplication: "false" },
      }),
    )
  ).QueueUrl as string;

  dir = await mkdtemp(join(tmpdir(), "kneeboard-plan-"));
  const configFile = join(dir, "kneeboard.config.json");
  // Three sweeps a slot: a in chat and rag, b in rag.
  writeFileSync(configFile, JSON.stringify(THREE_SWEEPS_CONFIG));
  const cron = (await loadSstConfig({ KNEEBOARD_CONFIG: configFile })).byName("Schedule").args;
  scheduleEvent = cron.event;

  const env = {
    KNEEBOARD_CONFIG_FILE: configFile,
    SST_RESOURCE_SweepQueue: JSON.stringify({ url: queueUrl }),
    AWS_ENDPOINT_URL_SQS: fauxqs.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
  };
  for (const [name, value] of Object.entries(env)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  restoreDns?.();
  sqs?.destroy();
  await fauxqs?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("plan, on the schedule", () => {
  it("plans the slot the schedule was due, and a duplicate invocation of it adds no message", async () => {
    // Act: the Scheduler delivers the 06:00 slot twice (at least once, so sometimes twice).
    const first = await handler(delivered("2026-12-03T06:00:00Z"));
    const second = await handler(delivered("2026-12-03T06:00:00Z"));

    // Assess: one slot, and one message per (target, scenario) on the queue.
    expect(first).toEqual({ slot: "2026-12-03T06:00:00.000Z", planned: 3 });
    expect(second).toEqual(first);
    const messages = await drain();
    expect(sweeps(messages)).toEqual(["a/chat", "a/rag", "b/rag"]);
    expect(new Set(messages.map((m) => m.slot))).toEqual(new Set([first.slot]));
  });

  it("plans the next slot anew", async () => {
    const next = await handler(delivered("2026-12-03T12:00:00Z"));
    const messages = await drain();
    expect(sweeps(messages)).toEqual(["a/chat", "a/rag", "b/rag"]);
    expect(messages.every((m) => m.slot === next.slot && next.slot === "2026-12-03T12:00:00.000Z")).toBe(true);
  });

  it("refuses an event whose time Scheduler did not fill in, sending nothing (it would not plan its own clock)", async () => {
    await expect(handler(scheduleEvent)).rejects.toBeInstanceOf(KneeboardError);
    expect(await drain()).toEqual([]);
  });
});
