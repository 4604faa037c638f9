/**
 * @module The whole scheduled path on one machine: plan -> queue -> sweep (continuing across simulated
 * short invocations) -> publish with the real handler code, in-process, against dynalite, s3rver,
 * fauxqs (SQS and SNS) and the reference targets. The functions' composition root builds its clients
 * with `new XClient({})`, so the local servers are reached through the SDK's own environment
 * (`AWS_ENDPOINT_URL_<SERVICE>`), set before the handlers are imported.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { CreateTopicCommand, SNSClient, SubscribeCommand } from "@aws-sdk/client-sns";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoRunIndex, S3SiteBucket, S3Store } from "@kneeboard/core/aws";
import type { RunDocument } from "@kneeboard/core/run";
import { loadPosition, loadWords } from "@kneeboard/core/run";
import { saveRun } from "@kneeboard/core/run-index";
import { DEFAULT_MARGIN_MS } from "@kneeboard/core/scheduled";
import { recordAwsCalls } from "@kneeboard/functions/testing/calls";
import { allows, grantsOf, needsOf } from "@kneeboard/functions/testing/grants";
import { loadSstConfig } from "@kneeboard/functions/testing/sst";
import {
  type ReferenceServer,
  referenceModels,
  referenceTargets,
  seededRandom,
  startReferenceServer,
  syntheticRun,
} from "@kneeboard/reference";
import { statusProblems } from "@kneeboard/test-support/accuracy";
import { type AwsLocal, REGION, startAwsLocal } from "@kneeboard/test-support/aws-local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TABLE = "kneeboard";
const RESULTS = "results-bucket";
const SITE = "site-bucket";
/** A target with a synthetic history whose throughput drops 40 % at the end: publish must alert on it. */
const SEEDED = "seeded-regression";
const WORKLOAD = {
  concurrency: [1, 2],
  maxTokens: 8,
  requestsPerLevel: 4,
  warmupRequests: 0,
  promptTokens: 20,
  requestTimeoutSeconds: 10,
  // A small canary (one completion of each prompt, 4 tokens, all at once): the deployed sweep runs it
  // after the levels within the invocation, in well under a second.
  canary: { samplesPerPrompt: 1, maxTokens: 4, concurrency: 10 },
};
const LONG_LAMBDA = { getRemainingTimeInMillis: () => 600_000 };
const ACCOUNT = "000000000000";
/** Every AWS call the handlers make, under the name of the sst.config.ts component that runs each. */
const recorder = recordAwsCalls([
  S3Client,
  DynamoDBClient,
  DynamoDBDocumentClient,
  SQSClient,
  SNSClient,
  CloudFrontClient,
]);

type Handlers = {
  plan: Pick<typeof import("@kneeboard/functions/plan"), "handler">;
  sweep: Pick<typeof import("@kneeboard/functions/sweep"), "handler">;
  publish: Pick<typeof import("@kneeboard/functions/publish"), "handler">;
  subscribe: Pick<typeof import("@kneeboard/functions/subscribe"), "handler">;
};

let aws: AwsLocal;
let reference: ReferenceServer;
let sqs: SQSClient;
let s3: S3Client;
let handlers: Handlers;
let targetIds: string[];
let configFile: string;
let config: Record<string, unknown>;
const queues = { sweep: "", publish: "", observer: "" };
let topicArn: string;
/** The top-level folders of the published site. */
let siteFolders: string[] = [];

const setEnv = (values: Record<string, string>) => aws.setEnv(values);

async function receiveAll(queueUrl: string, attempts = 10): Promise<Message[]> {
  const messages: Message[] = [];
  for (let i = 0; i < attempts; i++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ["All"],
      }),
    );
    const batch = out.Messages ?? [];
    for (const m of batch) {
      messages.push(m);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
    if (batch.length === 0 && messages.length > 0) break;
  }
  return messages;
}

/** One more run of the seeded target, an hour after its `i - 1`th. */
function seededRun(i: number): RunDocument {
  return syntheticRun({
    targetId: SEEDED,
    runId: `${SEEDED}-${i}`,
    startedAt: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
    singleStreamTokensPerSecond: 36,
    ttftMs: 300,
    saturationStreams: 8,
    concurrency: [1, 4, 16],
    noise: 0.01,
    random: seededRandom(i),
  });
}

/** The site bucket's keys publish uploaded since the `start`th recorded AWS call. */
function sitePuts(start: number): string[] {
  return recorder.calls
    .slice(start)
    .filter((c) => c.command === "PutObjectCommand" && c.input.Bucket === SITE)
    .map((c) => c.input.Key as string);
}

/** One file of the site bucket, as text. */
async function siteText(key: string): Promise<string> {
  const out = await s3.send(new GetObjectCommand({ Bucket: SITE, Key: key }));
  return (await out.Body?.transformToString("utf-8")) ?? "";
}

/** Makes uploads to the site bucket fail after `n` more (a publish dying midway); returns the undo. */
function failSitePutsAfter(n: number): () => void {
  let proto: object | null = S3Client.prototype;
  while (proto && !Object.hasOwn(proto, "send")) proto = Object.getPrototypeOf(proto);
  const owner = proto as {
    send: (this: unknown, command: { input?: { Bucket?: string } }, ...rest: unknown[]) => unknown;
  };
  const original = owner.send;
  let left = n;
  owner.send = function (this: unknown, command, ...rest) {
    if (command.constructor.name === "PutObjectCommand" && command.input?.Bucket === SITE && left-- <= 0)
      return Promise.reject(new Error("killed: the publish died here"));
    return original.call(this, command, ...rest);
  };
  return () => {
    owner.send = original;
  };
}

/** An SQS event of one message. */
function event(body: string, messageId = `m-${body.length}-${Date.now()}`) {
  return { Records: [{ messageId, body }] };
}

/** A Lambda context whose time runs out `budgetMs` after the deadline margin: a short simulated invocation. */
function shortLambda(budgetMs: number) {
  const endsAt = Date.now() + DEFAULT_MARGIN_MS + budgetMs;
  return { getRemainingTimeInMillis: () => endsAt - Date.now() };
}

/**
 * What a simulated invocation holds past its margin: one level of 2 s with 1.9 s to spare for a busy
 * machine (with 1 s, a loaded machine once finished no level in the first invocation), and never two,
 * which take 4 s of the wall clock at the least.
 */
const INVOCATION_BUDGET_MS = 3_900;

/**
 * Runs a sweep message, then each continuation it sends, as the queue delivers them, each in a
 * simulated invocation of `INVOCATION_BUDGET_MS`; returns the continuation bodies, the stored runs and the count.
 */
async function sweepAcrossInvocations(body: string) {
  const deliveries: string[] = [];
  const runs: string[] = [];
  let next: string | undefined = body;
  let invocations = 0;
  while (next !== undefined && invocations < 6) {
    const summary = await handlers.sweep.handler(event(next), shortLambda(INVOCATION_BUDGET_MS));
    invocations++;
    expect(summary.batchItemFailures).toEqual([]);
    runs.push(...summary.runs);
    next = undefined;
    if (summary.continued.length > 0) {
      const sent = await receiveAll(queues.sweep);
      expect(sent).toHaveLength(1);
      next = sent[0]?.Body as string;
      deliveries.push(next);
    }
  }
  return { deliveries, runs, invocations };
}

/**
 * Three levels of 2 s each: an invocation (`INVOCATION_BUDGET_MS`) holds one level, never two, and
 * stops in the next.
 */
async function withTimedLevels<T>(act: () => Promise<T>): Promise<T> {
  writeFileSync(
    configFile,
    JSON.stringify({
      ...config,
      workload: { ...WORKLOAD, concurrency: [1, 2, 4], requestsPerLevel: undefined, levelDurationSeconds: 2 },
    }),
  );
  try {
    return await act();
  } finally {
    writeFileSync(configFile, JSON.stringify(config));
  }
}

async function readDoc(key: string): Promise<RunDocument> {
  return readJson<RunDocument>(RESULTS, key);
}

async function keys(bucket: string, prefix = ""): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key as string).sort();
}

async function readJson<T>(bucket: string, key: string): Promise<T> {
  const store = new S3Store({ bucketName: bucket, client: s3 });
  return JSON.parse((await store.get(key)) as string) as T;
}

beforeAll(async () => {
  aws = await startAwsLocal({
    table: TABLE,
    results: RESULTS,
    site: SITE,
    name: "kneeboard-e2e",
    clear: ["KNEEBOARD_SWEEP_MAX_INVOCATIONS"],
  });
  // Streams of about 200 ms (25 ms a token): a loaded machine's client delay stays within 3 % of them,
  // so levels are valid and runs complete (a run with no valid level fails). The reference's own fast
  // models stream 8 tokens in about 25 ms, where a millisecond of read delay invalidates the level.
  reference = await startReferenceServer({
    port: 0,
    models: referenceModels().map((m) =>
      m.kind === "model" ? { ...m, profile: { ...m.profile, stepBaseMs: Math.max(25, m.profile.stepBaseMs) } } : m,
    ),
  });
  s3 = aws.s3;
  sqs = new SQSClient(aws.fauxqsClient);
  const sns = new SNSClient(aws.fauxqsClient);
  const create = async (QueueName: string, Attributes?: Record<string, string>) =>
    (await sqs.send(new CreateQueueCommand({ QueueName, Attributes }))).QueueUrl as string;
  queues.sweep = await create("sweep.fifo", { FifoQueue: "true", ContentBasedDeduplication: "false" });
  queues.publish = await create("publish");
  queues.observer = await create("alerts-observer");
  topicArn = (await sns.send(new CreateTopicCommand({ Name: "alerts" }))).TopicArn as string;
  const observerArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queues.observer, AttributeNames: ["QueueArn"] }))
  ).Attributes?.QueueArn as string;
  await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: "sqs",
      Endpoint: observerArn,
      Attributes: { RawMessageDelivery: "true" },
    }),
  );
  sns.destroy();

  const targets = referenceTargets(reference.url).slice(0, 2);
  targetIds = targets.map((t) => t.id);
  config = { targets, workload: WORKLOAD };
  configFile = join(mkdtempSync(join(tmpdir(), "kneeboard-e2e-")), "kneeboard.config.json");
  writeFileSync(configFile, JSON.stringify(config));

  setEnv({
    KNEEBOARD_CONFIG_FILE: configFile,
    SST_RESOURCE_SweepQueue: JSON.stringify({ url: queues.sweep }),
    SST_RESOURCE_PublishQueue: JSON.stringify({ url: queues.publish }),
    SST_RESOURCE_Alerts: JSON.stringify({ arn: topicArn }),
    SST_RESOURCE_Subscribe: JSON.stringify({ url: "http://127.0.0.1/subscribe" }),
  });
  const [plan, sweep, publish, subscribe] = await Promise.all([
    import("@kneeboard/functions/plan"),
    import("@kneeboard/functions/sweep"),
    import("@kneeboard/functions/publish"),
    import("@kneeboard/functions/subscribe"),
  ]);
  // Named as sst.config.ts names the component that runs each: the cron, the queues they subscribe to.
  handlers = {
    plan: { handler: recorder.as("Schedule", plan.handler) },
    sweep: { handler: recorder.as("SweepQueue", sweep.handler) },
    publish: { handler: recorder.as("PublishQueue", publish.handler) },
    subscribe: { handler: recorder.as("Subscribe", subscribe.handler) },
  };
});

afterAll(async () => {
  recorder.restore();
  sqs?.destroy();
  await Promise.allSettled([reference?.close(), aws?.close()]);
});

describe("the scheduled path on one machine", () => {
  let sweepBodies: string[] = [];

  it("plans one FIFO message per target for the slot", async () => {
    expect(await handlers.plan.handler({ time: "2026-12-03T06:00:00Z" })).toMatchObject({ planned: 2 });
    const messages = await receiveAll(queues.sweep);
    sweepBodies = messages.map((m) => m.Body as string);
    expect(sweepBodies.map((b) => JSON.parse(b)).sort((a, b) => a.targetId.localeCompare(b.targetId))).toEqual(
      targetIds.toSorted().map((targetId) => ({ targetId, slot: "2026-12-03T06:00:00.000Z" })),
    );
  });

  it("sweeps each message once; a duplicate delivery of a slot yields no second run", async () => {
    for (const body of sweepBodies) {
      const { runs } = await handlers.sweep.handler(event(body), LONG_LAMBDA);
      expect(runs).toHaveLength(1);
    }
    expect(await handlers.sweep.handler(event(sweepBodies[0] as string), LONG_LAMBDA)).toMatchObject({
      runs: [],
      duplicates: 1,
      batchItemFailures: [],
    });
    for (const targetId of targetIds) {
      const docs = await keys(RESULTS, `runs/${targetId}/`);
      expect(docs).toHaveLength(1);
      const doc = await readJson<RunDocument>(RESULTS, docs[0] as string);
      // Complete, or failed only because a loaded machine's client flagged every level: the path is the point.
      expect(statusProblems(doc, "complete"), JSON.stringify(doc.levels.map((l) => loadWords(l.load)))).toEqual([]);
      expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
      // The canary ran after the levels: each prompt once, answered in words at temperature 1.
      expect(doc.canary?.completions.map((c) => c.outcome)).toEqual(Array(10).fill("ok"));
      expect(doc.canary?.completions.every((c) => c.text.trim().split(" ").length === 4)).toBe(true);
    }
    const index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
    for (const targetId of targetIds) expect(await index.entries(targetId)).toHaveLength(1);
  });

  it("reports a malformed message and one for an unknown target back to the queue, sweeping nothing", async () => {
    const summary = await handlers.sweep.handler(
      {
        Records: [
          { messageId: "bad", body: "{" },
          { messageId: "stranger", body: JSON.stringify({ targetId: "nobody", slot: "2026-12-03T06:00:00Z" }) },
        ],
      },
      LONG_LAMBDA,
    );
    expect(summary).toMatchObject({ runs: [], rejected: 2 });
    expect(summary.batchItemFailures).toEqual([{ itemIdentifier: "bad" }, { itemIdentifier: "stranger" }]);
    expect(await keys(RESULTS, "runs/nobody/")).toEqual([]);
  });

  it("continues a sweep longer than one invocation and stores it complete, once, with every level", async () => {
    const targetId = targetIds[0] as string;
    const { deliveries, runs, invocations } = await withTimedLevels(() =>
      sweepAcrossInvocations(JSON.stringify({ targetId, slot: "2026-12-03T12:00:00.000Z" })),
    );
    expect(invocations).toBeGreaterThanOrEqual(2);
    expect(runs).toHaveLength(1);
    // A second delivery of every continuation, after the run went on or finished, yields nothing.
    for (const body of deliveries) {
      expect(await handlers.sweep.handler(event(body), LONG_LAMBDA)).toMatchObject({
        runs: [],
        continued: [],
        duplicates: 1,
      });
    }
    const docs = (await Promise.all((await keys(RESULTS, `runs/${targetId}/`)).map((k) => readDoc(k)))).filter(
      (d) => d.runId === runs[0],
    );
    expect(docs).toHaveLength(1);
    expect(statusProblems(docs[0] as RunDocument, "complete")).toEqual([]);
    expect(docs[0]?.levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 4]);
    for (const c of [1, 2, 3]) expect(docs[0]?.samples.some((s) => s.level === c)).toBe(true);
    const index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
    expect((await index.entries(targetId)).filter((e) => e.runId === runs[0])).toHaveLength(1);
    expect(await keys(RESULTS, "pending/")).toEqual([]);
  });

  it("stores a sweep partial, with its finished levels, when its continuation budget is spent", async () => {
    const targetId = targetIds[0] as string;
    setEnv({ KNEEBOARD_SWEEP_MAX_INVOCATIONS: "2" });
    try {
      const { runs, invocations } = await withTimedLevels(() =>
        sweepAcrossInvocations(JSON.stringify({ targetId, slot: "2026-12-03T18:00:00.000Z" })),
      );
      expect(invocations).toBe(2);
      const doc = (await Promise.all((await keys(RESULTS, `runs/${targetId}/`)).map((k) => readDoc(k)))).find(
        (d) => d.runId === runs[0],
      );
      expect(doc?.status).toBe("partial");
      expect(doc?.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
      expect(doc?.partialReason).toMatch(/continuation budget of 2 invocations/);
    } finally {
      delete process.env.KNEEBOARD_SWEEP_MAX_INVOCATIONS;
    }
    expect(await keys(RESULTS, `runs/${targetId}/`)).toHaveLength(3);
  });

  // Two Astro builds: on a loaded 2-core machine they alone can pass the default 60 s.
  it("publishes after the sweeps: the alert on the topic and the rebuilt site in the site bucket", async () => {
    // A synthetic history for one more target: steady, then 40 % slower in its last runs.
    const store = new S3Store({ bucketName: RESULTS, client: s3 });
    const index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
    const random = seededRandom(5);
    for (let i = 0; i < 46; i++) {
      await saveRun(
        store,
        index,
        syntheticRun({
          targetId: SEEDED,
          runId: `${SEEDED}-${i}`,
          startedAt: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
          singleStreamTokensPerSecond: 60 * (i >= 40 ? 0.6 : 1),
          ttftMs: 300,
          saturationStreams: 8,
          concurrency: [1, 4, 16],
          noise: 0.01,
          random,
        }),
      );
    }

    const published = await receiveAll(queues.publish);
    expect(published.length).toBeGreaterThan(0);
    const { alerts, files, messages, rejected } = await handlers.publish.handler({
      Records: published.map((m) => ({ messageId: m.MessageId as string, body: m.Body as string })),
    });
    expect([messages, rejected]).toEqual([published.length, 0]);
    expect(alerts).toBeGreaterThan(0);
    expect(files).toBeGreaterThan(0);

    const site = await keys(SITE);
    expect(site).toContain("index.html");
    expect(site).toContain("data/index.json");
    for (const targetId of targetIds) expect(site).toContain(`targets/${targetId}/index.html`);

    const runDocuments = site.filter((k) => k.startsWith("data/runs/")).length;
    expect(runDocuments).toBeGreaterThan(0);
    // Publishing again re-uploads the pages but none of the run documents already there, and deletes
    // what the new build does not have (a page of a target gone from the store), run documents aside.
    const stale = { page: "targets/gone/index.html", run: "data/runs/gone/20261101T000000Z-gone.json" };
    const siteBucket = new S3SiteBucket({ bucketName: SITE, client: s3 });
    await siteBucket.put(stale.page, new TextEncoder().encode("<p>gone</p>"), "text/html; charset=utf-8");
    await siteBucket.put(stale.run, new TextEncoder().encode("{}"), "application/json");
    const again = await handlers.publish.handler();
    // No message names targets: every page is rebuilt; files whose bytes did not change (the browser
    // bundles, the schemas) are not uploaded again, nor are the run documents.
    expect(again.full).toBe(true);
    expect(files - again.files).toBeGreaterThan(runDocuments);
    expect(again.deleted).toBe(1);
    const after = await keys(SITE);
    expect(after).not.toContain(stale.page);
    expect(after).toContain(stale.run);
    expect(after).toContain("index.html");
    siteFolders = [...new Set(after.filter((k) => k.includes("/")).map((k) => k.split("/")[0] as string))];

    const delivered = await receiveAll(queues.observer, 5);
    const seeded = delivered.filter((m) => m.MessageAttributes?.targetId?.StringValue === SEEDED);
    expect(seeded.length).toBeGreaterThan(0);
    expect(delivered.every((m) => m.MessageAttributes?.targetId?.StringValue === SEEDED)).toBe(true);
  }, 180_000);

  it("publishes one new run's pages alone: its target's and model's, and the pages that list targets", async () => {
    const store = new S3Store({ bucketName: RESULTS, client: s3 });
    const index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
    const entry = await saveRun(store, index, seededRun(46));
    const start = recorder.calls.length;
    const summary = await handlers.publish.handler(event(JSON.stringify({ runs: [entry.runId], targets: [SEEDED] })));
    expect(summary).toMatchObject({ full: false, deleted: 0, rejected: 0 });
    const written = sitePuts(start);
    expect(written.length).toBe(summary.files);
    for (const key of [
      `targets/${SEEDED}/index.html`,
      `data/${entry.key}`,
      "index.html",
      "data/index.json",
      `data/models/${entry.modelKey}/index.json`,
      `data/models/${entry.modelKey}/runs.csv`,
    ])
      expect(written).toContain(key);
    // No other target's page, no other model's page or downloads, no run document stored before.
    for (const id of targetIds) expect(written.filter((k) => k.startsWith(`targets/${id}/`))).toEqual([]);
    expect(written.filter((k) => k.startsWith("models/") && !k.startsWith(`models/${entry.modelKey}/`))).toEqual([]);
    const modelData = written.filter((k) => k.startsWith("data/models/"));
    expect(modelData.filter((k) => !k.startsWith(`data/models/${entry.modelKey}/`))).toEqual([]);
    expect(written.filter((k) => k.startsWith("data/runs/") && k !== `data/${entry.key}`)).toEqual([]);
    // The other targets' pages are still there, as they were, and other models' downloads.
    const site = await keys(SITE);
    for (const id of targetIds) expect(site).toContain(`targets/${id}/index.html`);
    expect(
      site.filter((k) => k.startsWith("data/models/") && !k.startsWith(`data/models/${entry.modelKey}/`)),
    ).not.toEqual([]);
  }, 180_000);

  it("leaves the site readable when a publish dies midway, and the next publish finishes its pages", async () => {
    const store = new S3Store({ bucketName: RESULTS, client: s3 });
    const index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
    const entry = await saveRun(store, index, seededRun(47));
    // The site bucket fails from its fourth upload on: the publish dies with most of its files unwritten.
    const restore = failSitePutsAfter(3);
    try {
      await expect(
        handlers.publish.handler(event(JSON.stringify({ runs: [entry.runId], targets: [SEEDED] }))),
      ).rejects.toThrow(/killed/);
    } finally {
      restore();
    }
    // Every page is whole (a file is replaced whole or not at all), the new run's among them or not yet.
    for (const key of ["index.html", `targets/${SEEDED}/index.html`, `targets/${targetIds[0]}/index.html`])
      expect((await siteText(key)).trimEnd().endsWith("</html>"), key).toBe(true);
    const state = JSON.parse((await store.get("publish/state.json")) as string);
    expect(state.pendingTargets).toEqual([SEEDED]);

    // The next publish, after a run of another target, rebuilds the pages the dead one began too.
    const start = recorder.calls.length;
    const next = await handlers.publish.handler(
      event(JSON.stringify({ runs: ["another-run"], targets: [targetIds[0] as string] })),
    );
    expect(next.full).toBe(false);
    const written = sitePuts(start);
    expect(written).toContain(`targets/${SEEDED}/index.html`);
    expect(written).toContain(`targets/${targetIds[0]}/index.html`);
    expect(await siteText(`data/${entry.key}`)).toContain(entry.runId);
    expect(await siteText(`targets/${SEEDED}/index.html`)).toContain(`${entry.runId}.json`);
    expect(JSON.parse((await store.get("publish/state.json")) as string).pendingTargets).toEqual([]);
  }, 180_000);

  it("routes every folder of the published site: the deployed empty site lacks most of them", async () => {
    const config = await loadSstConfig({ KNEEBOARD_CONFIG: configFile });
    const routes = (config.byName("Site").args.assets as { routes: string[] }).routes;
    expect(siteFolders.length).toBeGreaterThan(3);
    expect(siteFolders.filter((f) => !routes.includes(f))).toEqual([]);
  });

  it("subscribes an address to a target's alerts through the subscribe function", async () => {
    const response = (await handlers.subscribe.handler({
      requestContext: { http: { method: "POST", sourceIp: "203.0.113.7" } },
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "operator@example.com", targets: [targetIds[0]] }),
    })) as { statusCode: number };
    expect(response.statusCode).toBe(202);
  });

  it("made only AWS calls that each function's grants in sst.config.ts allow, resource included", async () => {
    const config = await loadSstConfig({ KNEEBOARD_CONFIG: configFile });
    const where = { region: REGION, account: ACCOUNT };
    const queueArn = (url: string) => needsOf("SendMessageCommand", { QueueUrl: url }, where)[0]?.resource as string;
    // The stand-ins' output paths, as the local servers name the same resources.
    const arns = {
      "Table.arn": `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`,
      "Results.arn": `arn:aws:s3:::${RESULTS}`,
      "Site.nodes.assets.arn": `arn:aws:s3:::${SITE}`,
      "SweepQueue.arn": queueArn(queues.sweep),
      "PublishQueue.arn": queueArn(queues.publish),
      "Alerts.arn": topicArn,
    };
    const fns = new Map(config.functions().map((f) => [f.name, f.fn]));
    const byFunction = new Map<string, typeof recorder.calls>();
    for (const call of recorder.calls) byFunction.set(call.fn, [...(byFunction.get(call.fn) ?? []), call]);
    // Every function of the scheduled path ran and called AWS.
    expect([...byFunction.keys()].sort()).toEqual(["PublishQueue", "Schedule", "Subscribe", "SweepQueue"]);
    const denied: string[] = [];
    for (const [name, calls] of byFunction) {
      const grants = grantsOf(fns.get(name) as Record<string, unknown>, arns);
      for (const call of calls)
        for (const need of needsOf(call.command, call.input, where))
          if (!allows(grants, need)) denied.push(`${name}: ${call.command} needs ${need.action} on ${need.resource}`);
    }
    expect([...new Set(denied)]).toEqual([]);
  });
});
