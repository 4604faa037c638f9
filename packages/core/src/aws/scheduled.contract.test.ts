/**
 * @module The scheduled path's port contracts on the AWS implementations (SqsQueue on fauxqs,
 * S3SiteBucket and S3PendingRuns on s3rver), and the CloudFront adapter with the real SDK client
 * against a local HTTP server that records the request. The in-memory implementations run the same
 * contracts in scheduled/contract.test.ts.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { type FauxqsHandle, fauxqsClientConfig, startFauxqs } from "@kneeboard/test-support/fauxqs";
import { type S3rverHandle, s3ClientConfig, startS3rver } from "@kneeboard/test-support/s3rver";
import { interceptLocalhostDns } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingRunsContract, queueContract, siteBucketContract } from "../../testing/scheduled.contract.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { CloudFrontCdn, S3PendingRuns, S3SiteBucket, SqsQueue } from "./index.ts";

let fauxqs: FauxqsHandle;
let s3rver: S3rverHandle;
let sqs: SQSClient;
let s3: S3Client;
let restoreDns: (() => void) | undefined;

beforeAll(async () => {
  [fauxqs, s3rver] = await Promise.all([startFauxqs(), startS3rver()]);
  sqs = new SQSClient(fauxqsClientConfig(fauxqs.endpoint));
  s3 = new S3Client(s3ClientConfig(s3rver.endpoint));
  // fauxqs's queue URLs name `sqs.<region>.localhost`: its DNS patch keeps them on loopback.
  restoreDns = interceptLocalhostDns();
});

afterAll(async () => {
  restoreDns?.();
  sqs?.destroy();
  s3?.destroy();
  await Promise.allSettled([fauxqs?.close(), s3rver?.close()]);
});

const doc = syntheticRun({
  targetId: "t-pending",
  runId: "20260101T060000Z-abc",
  startedAt: "2026-01-01T06:00:00Z",
  singleStreamTokensPerSecond: 50,
  ttftMs: 250,
  saturationStreams: 4,
  concurrency: [1, 2, 4],
});

async function receiveAll(queueUrl: string): Promise<{ body: string; groupId?: string }[]> {
  const got: { body: string; groupId?: string }[] = [];
  for (let i = 0; i < 20; i++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ["MessageGroupId"],
      }),
    );
    const batch = out.Messages ?? [];
    if (batch.length === 0) break;
    for (const m of batch) {
      got.push({ body: m.Body as string, groupId: m.Attributes?.MessageGroupId });
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
  }
  return got;
}

queueContract("SqsQueue on fauxqs, standard", async () => {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: `q-${randomUUID()}` }))).QueueUrl as string;
  return { queue: new SqsQueue({ queueUrl: url, client: sqs }), fifo: false, receive: () => receiveAll(url) };
});

queueContract("SqsQueue on fauxqs, FIFO", async () => {
  const url = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: `q-${randomUUID()}.fifo`,
        Attributes: { FifoQueue: "true", ContentBasedDeduplication: "false" },
      }),
    )
  ).QueueUrl as string;
  return { queue: new SqsQueue({ queueUrl: url, client: sqs }), fifo: true, receive: () => receiveAll(url) };
});

describe("SqsQueue on fauxqs", () => {
  it("fails a send the queue refuses, naming the queue", async () => {
    const url = (
      await sqs.send(new CreateQueueCommand({ QueueName: `q-${randomUUID()}.fifo`, Attributes: { FifoQueue: "true" } }))
    ).QueueUrl as string;
    // A FIFO queue needs a group id.
    await expect(new SqsQueue({ queueUrl: url, client: sqs }).send({ body: "x" })).rejects.toThrow();
  });
});

siteBucketContract("S3SiteBucket on s3rver", async () => {
  const bucketName = `site-${randomUUID()}`;
  await s3rver.createBucket(bucketName);
  return {
    bucket: new S3SiteBucket({ bucketName, client: s3 }),
    read: async (key) => {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
      return {
        body: await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        contentType: out.ContentType,
      };
    },
  };
});

pendingRunsContract(
  "S3PendingRuns on s3rver",
  async () => {
    const bucketName = `results-${randomUUID()}`;
    await s3rver.createBucket(bucketName);
    return new S3PendingRuns({ bucketName, client: s3 });
  },
  doc,
);

describe("CloudFrontCdn with the SDK client", () => {
  let server: Server;
  const requests: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        requests.push({ method: req.method ?? "", url: req.url ?? "", body });
        res.writeHead(201, { "content-type": "text/xml", location: "https://cloudfront/inv/I1" });
        res.end(
          '<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">' +
            "<Id>I1</Id><Status>InProgress</Status><CreateTime>2026-12-03T07:00:00Z</CreateTime>" +
            "<InvalidationBatch><Paths><Quantity>1</Quantity><Items><Path>/*</Path></Items></Paths>" +
            "<CallerReference>ref</CallerReference></InvalidationBatch></Invalidation>",
        );
      });
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  });

  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it("asks for one invalidation of the paths, with the caller reference, on the distribution", async () => {
    const client = new CloudFrontClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
    await new CloudFrontCdn({ distributionId: "E123ABC", client }).invalidate(["/*"], "2026-12-03T07:00:00.000Z");
    client.destroy();
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toMatch(/^\/2020-05-31\/distribution\/E123ABC\/invalidation/);
    expect(request?.body).toContain("<CallerReference>2026-12-03T07:00:00.000Z</CallerReference>");
    expect(request?.body).toMatch(/<Paths><Quantity>1<\/Quantity><Items><Path>\/\*<\/Path><\/Items><\/Paths>/);
  });
});
