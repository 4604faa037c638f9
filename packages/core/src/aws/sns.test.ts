/**
 * @module The SNS adapters on fauxqs: alerts published with their filter attributes and delivered once
 * through `SnsChannel`; email subscriptions with a filter policy through `SnsSubscriptions`, alone and
 * behind the subscribe endpoint.
 */
import {
  CreateTopicCommand,
  GetSubscriptionAttributesCommand,
  ListSubscriptionsByTopicCommand,
  SNSClient,
  SubscribeCommand,
  type Subscription,
} from "@aws-sdk/client-sns";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { fauxqsClientConfig, startFauxqs } from "@kneeboard/test-support/fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryAlertLedger } from "../ledger/memory.ts";
import { MemoryRateLimiter } from "../limiter/memory.ts";
import { makeAlert, makeRouteChange } from "../notify/alert.fixture.ts";
import { deliver } from "../notify/deliver.ts";
import { AlreadySubscribedError, handleSubscribe } from "../subscribe/index.ts";
import { alertSubject, publishAlert, SnsChannel, SnsSubscriptions, subscriptionAttributes } from "./sns.ts";

let server: Awaited<ReturnType<typeof startFauxqs>>;
let sns: SNSClient;
let sqs: SQSClient;
let topicArn: string;
const queues: Record<"a" | "b" | "all", string> = { a: "", b: "", all: "" };

async function createQueue(name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  if (!QueueUrl) throw new Error("no queue url");
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }));
  return { url: QueueUrl, arn: Attributes?.QueueArn ?? "" };
}

/** Everything in the queue now, deleted as read. */
async function drain(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ["All"] }),
    );
    if (Messages.length === 0) return all;
    for (const m of Messages)
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    all.push(...Messages);
  }
}

const attr = (m: Message, name: string) => m.MessageAttributes?.[name]?.StringValue;

beforeAll(async () => {
  server = await startFauxqs();
  sns = new SNSClient(fauxqsClientConfig(server.endpoint));
  sqs = new SQSClient(fauxqsClientConfig(server.endpoint));
  topicArn = (await sns.send(new CreateTopicCommand({ Name: "kneeboard-alerts" }))).TopicArn ?? "";
  // Two queues stand in for two people's filtered email subscriptions; a third sees the envelope.
  for (const [key, target] of [
    ["a", "target-a"],
    ["b", "target-b"],
  ] as const) {
    const queue = await createQueue(`alerts-${key}`);
    queues[key] = queue.url;
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: "sqs",
        Endpoint: queue.arn,
        Attributes: { ...subscriptionAttributes([target]), RawMessageDelivery: "true" },
      }),
    );
  }
  const all = await createQueue("alerts-all");
  queues.all = all.url;
  await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: "sqs", Endpoint: all.arn }));
});

afterAll(async () => {
  sns?.destroy();
  sqs?.destroy();
  await server?.close();
});

describe("alertSubject", () => {
  it("stays under 100 printable ASCII characters on one line", () => {
    const subject = alertSubject(makeAlert({ title: `Fell — a lot\n${"very ".repeat(40)}→ done` }));
    expect(subject.length).toBeLessThan(100);
    expect(subject).toMatch(/^[\x20-\x7E]+$/);
    expect(subject.startsWith("[kneeboard] Regression open: Acme Llama 70B: Fell - a lot very")).toBe(true);
  });
});

describe("publishAlert against fauxqs", () => {
  it("reaches only the subscriptions whose filter policy names the target, with its attributes", async () => {
    // Act
    await publishAlert(sns, topicArn, makeAlert({ targetId: "target-a", id: "a1" }));
    await publishAlert(sns, topicArn, makeAlert({ targetId: "target-b", id: "b1", severity: "critical" }));
    await publishAlert(sns, topicArn, makeRouteChange({ targetId: "target-b", id: "b2" }));

    // Assess
    const a = await drain(queues.a);
    const b = await drain(queues.b);
    expect(a.map((m) => attr(m, "targetId"))).toEqual(["target-a"]);
    expect(b.map((m) => attr(m, "targetId"))).toEqual(["target-b", "target-b"]);
    const [first] = a;
    expect(attr(first as Message, "metric")).toBe("singleStreamOutputTokensPerSecond");
    expect(attr(first as Message, "severity")).toBe("warning");
    expect(first?.MessageAttributes?.metrics?.DataType).toBe("String.Array");
    expect(JSON.parse(attr(first as Message, "metrics") ?? "[]")).toEqual([
      "singleStreamOutputTokensPerSecond",
      "peakAggregateOutputTokensPerSecond",
    ]);
    expect(first?.Body).toContain("single-stream: 82.4 tok/s");
    expect(first?.Body).toContain("Regression open (warning) on Acme Llama 70B [target-a]");
    const route = b.find((m) => attr(m, "kind") === "route_change");
    expect(attr(route as Message, "metric")).toBe("route");
    expect(attr(route as Message, "severity")).toBe("info");
    expect(route?.Body).toContain("served by: provider-a → provider-b");

    // The unfiltered, non-raw subscription sees SNS's envelope, which carries the mail subject.
    const envelopes = (await drain(queues.all)).map((m) => JSON.parse(m.Body ?? "{}"));
    expect(envelopes).toHaveLength(3);
    expect(envelopes[0].Subject).toBe(alertSubject(makeAlert({ targetId: "target-a", id: "a1" })));
    expect(envelopes[0].MessageAttributes.targetId).toEqual({ Type: "String", Value: "target-a" });
  });
});

describe("deliver to SNS", () => {
  it("publishes regressions and route changes once; improvements never; re-runs publish nothing", async () => {
    // Prepare
    const alerts = [
      makeAlert({ targetId: "target-a", id: "a-open" }),
      makeAlert({ targetId: "target-a", id: "a-better", kind: "improvement" }),
      makeAlert({ targetId: "target-b", id: "b-resolved", state: "resolved", resolvedAt: "2025-01-15T00:00:00Z" }),
      makeRouteChange({ targetId: "target-b", id: "b-route" }),
    ];
    const ledger = new MemoryAlertLedger();
    const channels = [new SnsChannel({ topicArn, client: sns })];

    // Act
    const first = await deliver(alerts, { ledger, channels });
    const a = await drain(queues.a);
    const b = await drain(queues.b);
    const again = await deliver(alerts, { ledger, channels });

    // Assess
    expect(first).toEqual({ notifying: 3, channels: { sns: { sent: 3, skipped: 0, failed: 0, errors: [] } } });
    expect(a.map((m) => attr(m, "state"))).toEqual(["open"]);
    expect(b.map((m) => `${attr(m, "kind")}/${attr(m, "state")}`).sort()).toEqual([
      "regression/resolved",
      "route_change/open",
    ]);
    expect(again.channels.sns).toEqual({ sent: 0, skipped: 3, failed: 0, errors: [] });
    expect(await drain(queues.a)).toEqual([]);
    expect(await drain(queues.b)).toEqual([]);
    expect(await drain(queues.all)).toHaveLength(3);
  });

  it("sends the resolution of an alert already delivered open", async () => {
    const ledger = new MemoryAlertLedger();
    const channels = [new SnsChannel({ topicArn, client: sns })];
    const open = makeAlert({ targetId: "target-a", id: "a-life" });
    await deliver([open], { ledger, channels });
    const report = await deliver([{ ...open, state: "resolved", resolvedAt: "2025-01-20T00:00:00Z" }], {
      ledger,
      channels,
    });
    expect(report.channels.sns?.sent).toBe(1);
    expect((await drain(queues.a)).map((m) => attr(m, "state"))).toEqual(["open", "resolved"]);
    await drain(queues.all);
  });

  it("reports a failed publish and retries it next run", async () => {
    const ledger = new MemoryAlertLedger();
    const alert = makeAlert({ targetId: "target-a", id: "a-retry" });
    const warnings: string[] = [];
    const failed = await deliver([alert], {
      ledger,
      channels: [new SnsChannel({ topicArn: `${topicArn}-missing`, client: sns })],
      warn: (m) => warnings.push(m),
    });
    expect(failed.channels.sns).toMatchObject({ sent: 0, failed: 1 });
    expect(warnings).toHaveLength(1);
    const retried = await deliver([alert], { ledger, channels: [new SnsChannel({ topicArn, client: sns })] });
    expect(retried.channels.sns).toMatchObject({ sent: 1, failed: 0 });
    expect(await drain(queues.a)).toHaveLength(1);
    await drain(queues.all);
  });
});

/** The subscription of an address to the topic, with its attributes (the filter policy). */
async function subscriptionFor(email: string): Promise<{ sub: Subscription; attributes: Record<string, string> }> {
  const { Subscriptions = [] } = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
  const sub = Subscriptions.find((s) => s.Endpoint === email);
  if (!sub) throw new Error(`no subscription for ${email}`);
  const { Attributes = {} } = await sns.send(
    new GetSubscriptionAttributesCommand({ SubscriptionArn: sub.SubscriptionArn }),
  );
  return { sub, attributes: Attributes };
}

describe("SnsSubscriptions against fauxqs", () => {
  it("subscribes an address by email with a filter policy on its targets", async () => {
    await new SnsSubscriptions({ topicArn, client: sns }).subscribe("ada@example.com", ["target-a", "target-b"]);
    const { sub, attributes } = await subscriptionFor("ada@example.com");
    expect(sub.Protocol).toBe("email");
    expect(JSON.parse(attributes.FilterPolicy ?? "{}")).toEqual({ targetId: ["target-a", "target-b"] });
    expect(attributes.FilterPolicyScope).toBe("MessageAttributes");
  });

  it("refuses other targets for a subscribed address with AlreadySubscribedError, keeping its policy", async () => {
    const subscriptions = new SnsSubscriptions({ topicArn, client: sns });
    await subscriptions.subscribe("change@example.com", ["target-a"]);
    await expect(subscriptions.subscribe("change@example.com", ["target-b"])).rejects.toBeInstanceOf(
      AlreadySubscribedError,
    );
    const { attributes } = await subscriptionFor("change@example.com");
    expect(JSON.parse(attributes.FilterPolicy ?? "{}")).toEqual({ targetId: ["target-a"] });
  });

  it("fails a subscribe to a missing topic with SNS's own error", async () => {
    const missing = new SnsSubscriptions({ topicArn: `${topicArn}-missing`, client: sns });
    const error = await missing.subscribe("x@example.com", ["target-a"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(AlreadySubscribedError);
  });
});

describe("handleSubscribe on SnsSubscriptions", () => {
  it("subscribes with a filter policy (202), then answers 409 to other targets for the address", async () => {
    const deps = {
      subscriptions: new SnsSubscriptions({ topicArn, client: sns }),
      knownTargetIds: ["target-a", "target-b"],
      limiter: new MemoryRateLimiter(),
      nowMs: Date.parse("2025-03-01T00:00:00Z"),
    };
    const request = (targets: string[]) => ({
      method: "POST",
      body: JSON.stringify({ email: "Grace@Example.ORG", targets }),
      contentType: "application/json",
    });
    expect((await handleSubscribe(request(["target-a", "target-b"]), deps)).statusCode).toBe(202);
    const { attributes } = await subscriptionFor("Grace@example.org");
    expect(JSON.parse(attributes.FilterPolicy ?? "{}")).toEqual({ targetId: ["target-a", "target-b"] });
    expect((await handleSubscribe(request(["target-b"]), deps)).statusCode).toBe(409);
  });
});
