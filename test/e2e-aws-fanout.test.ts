/**
 * @module A full rebuild fanned out over the publish queue, with the real publish handler in-process
 * against dynalite, s3rver and fauxqs, and a fan-out threshold of 2 targets (1 target a page batch):
 * the publish that decides on it sends 3 page batches to the queue; the batches build and stage their
 * pages, one fails and the queue redelivers it; the last builds the shared pages and swaps the new site
 * in. The old site stays as it was until the swap, and the site after it is, file for file, the site a
 * single invocation builds from the same store at the same time: each page rendered once (a batch its
 * target's and model's pages, the swap the shared ones, as each invocation reports), and nothing of the
 * rebuild left behind (staging, manifests, ledger item).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { DynamoRunIndex, S3SiteBucket, S3Store } from "@kneeboard/core/aws";
import { saveRun } from "@kneeboard/core/run-index";
import { builtFiles, REBUILD_STAGING_PREFIX } from "@kneeboard/core/scheduled";
import { recordAwsCalls } from "@kneeboard/functions/testing/calls";
import { allows, grantsOf, needsOf } from "@kneeboard/functions/testing/grants";
import { loadSstConfig } from "@kneeboard/functions/testing/sst";
import { seededRandom, syntheticRun } from "@kneeboard/reference";
import { buildSite } from "@kneeboard/site/build";
import { type AwsLocal, REGION, startAwsLocal } from "@kneeboard/test-support/aws-local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TABLE = "kneeboard";
const RESULTS = "results-bucket";
const SITE = "site-bucket";
const TARGETS = ["alpha-route", "bravo-route", "charlie-route"];
const SUBSCRIBE_URL = "http://127.0.0.1/subscribe";
const ACCOUNT = "000000000000";
/** Every AWS call publish makes, to hold against its grants in sst.config.ts. */
const recorder = recordAwsCalls([S3Client, DynamoDBClient, DynamoDBDocumentClient, SQSClient]);
let configFile: string;

let aws: AwsLocal;
let sqs: SQSClient;
let s3: S3Client;
let publishQueue: string;
let handler: typeof import("@kneeboard/functions/publish").handler;
let store: S3Store;
let index: DynamoRunIndex;
const setEnv = (values: Record<string, string>) => aws.setEnv(values);

/** A run of `targetId`, the `i`th of its history, an hour apart. */
function run(targetId: string, i: number) {
  return syntheticRun({
    targetId,
    runId: `${targetId}-${i}`,
    startedAt: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
    singleStreamTokensPerSecond: 40 + 10 * TARGETS.indexOf(targetId),
    ttftMs: 300,
    saturationStreams: 8,
    concurrency: [1, 4],
    noise: 0.01,
    random: seededRandom(i * 7 + TARGETS.indexOf(targetId)),
  });
}

/** Every file of the site bucket, by key, as its SHA-256. */
async function liveSite(): Promise<Record<string, string>> {
  const bucket = new S3SiteBucket({ bucketName: SITE, client: s3 });
  const files: Record<string, string> = {};
  for (const key of await bucket.list("")) {
    const out = await s3.send(new GetObjectCommand({ Bucket: SITE, Key: key }));
    files[key] = createHash("sha256")
      .update(await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())
      .digest("hex");
  }
  return files;
}

/** Every file a single-invocation build writes, by key, as its SHA-256. */
async function builtSite(outDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const { key, path } of builtFiles(outDir))
    files[key] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  return files;
}

/**
 * The old site is whole: every file of it is there with its bytes, and the only new files are staged
 * pages (under the staging prefix, which the CDN does not route) and new run documents (which nothing
 * links to yet, and which never change).
 */
async function expectOldSiteServed(old: Record<string, string>) {
  const live = await liveSite();
  expect(Object.fromEntries(Object.keys(old).map((k) => [k, live[k]]))).toEqual(old);
  const added = Object.keys(live).filter((k) => !(k in old));
  expect(added.filter((k) => !k.startsWith(REBUILD_STAGING_PREFIX) && !k.startsWith("data/runs/"))).toEqual([]);
}

/** What the queue holds now, received (each stays invisible for the queue's visibility timeout). */
async function receive(): Promise<Message[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: publishQueue,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ["ApproximateReceiveCount"],
    }),
  );
  return out.Messages ?? [];
}

/** Delivers messages to publish as Lambda's poller does, deleting those it did not report as failed. */
async function deliver(messages: Message[]) {
  const summary = await handler({
    Records: messages.map((m) => ({ messageId: m.MessageId as string, body: m.Body as string })),
  });
  const failed = new Set(summary.batchItemFailures.map((f) => f.itemIdentifier));
  for (const m of messages)
    if (!failed.has(m.MessageId as string))
      await sqs.send(new DeleteMessageCommand({ QueueUrl: publishQueue, ReceiptHandle: m.ReceiptHandle }));
  return summary;
}

/** Makes puts to the site bucket fail (a batch dying while it stages); returns the undo. */
function failSitePuts(): () => void {
  let proto: object | null = S3Client.prototype;
  while (proto && !Object.hasOwn(proto, "send")) proto = Object.getPrototypeOf(proto);
  const owner = proto as {
    send: (this: unknown, command: { input?: { Bucket?: string } }, ...rest: unknown[]) => unknown;
  };
  const original = owner.send;
  owner.send = function (this: unknown, command, ...rest) {
    if (command.constructor.name === "PutObjectCommand" && command.input?.Bucket === SITE)
      return Promise.reject(new Error("killed: the batch died here"));
    return original.call(this, command, ...rest);
  };
  return () => {
    owner.send = original;
  };
}

beforeAll(async () => {
  aws = await startAwsLocal({ table: TABLE, results: RESULTS, site: SITE, name: "kneeboard-fanout" });
  s3 = aws.s3;
  sqs = new SQSClient(aws.fauxqsClient);
  // A 2-second visibility timeout: a failed batch comes back within the test (16 minutes deployed).
  publishQueue = (
    await sqs.send(new CreateQueueCommand({ QueueName: "publish", Attributes: { VisibilityTimeout: "2" } }))
  ).QueueUrl as string;

  configFile = join(mkdtempSync(join(tmpdir(), "kneeboard-fanout-")), "kneeboard.config.json");
  // Targets the sweeps would measure; publish reads only the config's standing from it.
  const targets = TARGETS.map((id) => ({
    id,
    label: id,
    baseURL: "http://127.0.0.1:9/v1",
    model: `model-${id}`,
    route: { gateway: "direct" },
  }));
  writeFileSync(configFile, JSON.stringify({ targets }));
  setEnv({
    KNEEBOARD_CONFIG_FILE: configFile,
    SST_RESOURCE_PublishQueue: JSON.stringify({ url: publishQueue }),
    SST_RESOURCE_Alerts: JSON.stringify({ arn: "arn:aws:sns:us-east-1:000000000000:alerts" }),
    SST_RESOURCE_Subscribe: JSON.stringify({ url: SUBSCRIBE_URL }),
  });
  handler = recorder.as("PublishQueue", (await import("@kneeboard/functions/publish")).handler);
  store = new S3Store({ bucketName: RESULTS, client: s3 });
  index = new DynamoRunIndex({ tableName: TABLE, client: new DynamoDBClient({}) });
  for (const id of TARGETS) for (let i = 0; i < 4; i++) await saveRun(store, index, run(id, i));
});

afterAll(async () => {
  recorder.restore();
  sqs?.destroy();
  await aws?.close();
});

describe("a full rebuild fanned out over the publish queue", () => {
  it("builds in page batches, redelivers a failed one, keeps the old site until the swap, and ends as one build would", async () => {
    // Prepare: the old site, built in one invocation (3 targets, under a threshold of 10).
    setEnv({ KNEEBOARD_PUBLISH_FANOUT_TARGETS: "10" });
    const first = await handler();
    expect([first.full, first.fannedOut, first.swapped]).toEqual([true, 0, false]);
    for (const id of TARGETS) await saveRun(store, index, run(id, 4));
    const old = await liveSite();
    expect(Object.keys(old).length).toBeGreaterThan(20);

    // Act: a full rebuild over a threshold of 2 targets fans out, one target a batch.
    setEnv({ KNEEBOARD_PUBLISH_FANOUT_TARGETS: "2" });
    const start = await handler();
    expect([start.full, start.fannedOut, start.files, start.swapped]).toEqual([true, 3, 0, false]);
    await expectOldSiteServed(old);

    // The first delivery: one batch, whose staging dies; the queue keeps it and redelivers it.
    const firstReceived = await receive();
    expect(firstReceived.length).toBeGreaterThan(0);
    const dying = firstReceived[0] as Message;
    const restore = failSitePuts();
    let failed: Awaited<ReturnType<typeof deliver>>;
    try {
      failed = await deliver([dying]);
    } finally {
      restore();
    }
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: dying.MessageId }]);
    await expectOldSiteServed(old);
    // The other messages of that receive go back too (not delivered yet); each returns after 2 s.

    // A publish message meanwhile waits in the queue: the site is being rebuilt.
    const during = await handler({
      Records: [{ messageId: "sweep-1", body: JSON.stringify({ runs: ["x"], targets: ["alpha-route"] }) }],
    });
    expect([during.deferred, during.batchItemFailures]).toEqual([1, [{ itemIdentifier: "sweep-1" }]]);

    // Deliver until the swap, each message in an invocation of its own (as Lambda's poller may hand
    // them out): the batches meet only in the table's ledger. Bounded.
    const seen = new Map<string, number>();
    const invocations: { pageBatches: number; swapped: boolean }[] = [];
    const rendered: { target: string; pages: number; swapped: boolean }[] = [];
    let now = "";
    let generation = "";
    for (let round = 0; round < 30 && !invocations.some((i) => i.swapped); round++)
      for (const m of await receive()) {
        seen.set(m.MessageId as string, Number(m.Attributes?.ApproximateReceiveCount ?? 0));
        const { rebuild } = JSON.parse(m.Body as string) as {
          rebuild: { now: string; generation: string; targets: string[] };
        };
        ({ now, generation } = rebuild);
        const summary = await deliver([m]);
        expect(summary.batchItemFailures).toEqual([]);
        invocations.push({ pageBatches: summary.pageBatches, swapped: summary.swapped });
        rendered.push({ target: rebuild.targets.join(), pages: summary.pagesBuilt, swapped: summary.swapped });
        // Until the last batch swaps in, the live site is the old one, byte for byte.
        if (!summary.swapped) await expectOldSiteServed(old);
      }

    // Assess: three invocations, one batch each, the last of them swapping; the failed batch received again.
    expect(invocations).toEqual([
      { pageBatches: 1, swapped: false },
      { pageBatches: 1, swapped: false },
      { pageBatches: 1, swapped: true },
    ]);
    expect(seen.get(dying.MessageId as string)).toBeGreaterThanOrEqual(2);
    expect(await receive()).toEqual([]);
    const state = JSON.parse((await store.get("publish/state.json")) as string);
    expect([state.fanout, state.fullPending]).toEqual([null, false]);

    // The same site as a single invocation builds from this store at the rebuild's time.
    const outDir = join(aws.tmp, "single");
    await buildSite({ store, index, outDir, now, subscribeUrl: SUBSCRIBE_URL });
    const single = await builtSite(outDir);
    const live = await liveSite();
    expect(Object.keys(live).filter((k) => k.startsWith(REBUILD_STAGING_PREFIX))).toEqual([]);
    expect(Object.keys(live).sort()).toEqual(Object.keys(single).sort());
    const differing = Object.keys(single).filter((k) => live[k] !== single[k]);
    expect(differing).toEqual([]);
    // And it is a new site: the runs stored after the old one are on it.
    expect(Object.keys(live).filter((k) => live[k] !== old[k]).length).toBeGreaterThan(0);

    // Each page was rendered once over the whole rebuild: a batch its target's and its model's pages
    // alone, the swapping invocation the pages every target shares besides. None rendered and thrown away.
    const pages = Object.keys(single).filter((k) => k.endsWith(".html"));
    const own = (id: string) => pages.filter((k) => k.startsWith(`targets/${id}/`) || k.startsWith(`models/${id}/`));
    const shared = pages.filter((k) => !TARGETS.some((id) => own(id).includes(k)));
    expect(shared.length).toBeGreaterThan(10);
    expect(rendered).toEqual(
      rendered.map((r) => ({ ...r, pages: own(r.target).length + (r.swapped ? shared.length : 0) })),
    );
    expect(rendered.reduce((n, r) => n + r.pages, 0)).toBe(pages.length);

    // Nothing of the rebuild is left: no staged page, no batch's manifest, no ledger record.
    expect(await store.list("publish/rebuild/")).toEqual([]);
    const items = await DynamoDBDocumentClient.from(new DynamoDBClient({})).send(new ScanCommand({ TableName: TABLE }));
    expect((items.Items ?? []).filter((i) => String(i.pk).startsWith("rebuild#"))).toEqual([]);
    expect(Object.keys(live).some((k) => k.includes(generation))).toBe(false);
  }, 600_000);

  it("made only AWS calls that publish's grants in sst.config.ts allow (the swap's copies, the ledger, its own queue)", async () => {
    const config = await loadSstConfig({ KNEEBOARD_CONFIG: configFile });
    const where = { region: REGION, account: ACCOUNT };
    const arns = {
      "Table.arn": `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`,
      "Results.arn": `arn:aws:s3:::${RESULTS}`,
      "Site.nodes.assets.arn": `arn:aws:s3:::${SITE}`,
      "PublishQueue.arn": needsOf("SendMessageCommand", { QueueUrl: publishQueue }, where)[0]?.resource as string,
      "Alerts.arn": `arn:aws:sns:${REGION}:${ACCOUNT}:alerts`,
    };
    const fn = config.functions().find((f) => f.name === "PublishQueue")?.fn as Record<string, unknown>;
    const grants = grantsOf(fn, arns);
    const calls = recorder.calls.filter((c) => c.fn === "PublishQueue");
    // The fan-out's own calls were made: the swap's copies, the ledger's updates, the page batches sent.
    expect([...new Set(calls.map((c) => c.command))]).toEqual(
      expect.arrayContaining(["CopyObjectCommand", "UpdateCommand", "SendMessageBatchCommand"]),
    );
    const denied = calls.flatMap((call) =>
      needsOf(call.command, call.input, where)
        .filter((need) => !allows(grants, need))
        .map((need) => `${call.command} needs ${need.action} on ${need.resource}`),
    );
    expect([...new Set(denied)]).toEqual([]);
  });
});
