/**
 * @module The store contracts on the AWS implementations (S3Store on s3rver, the DynamoDB adapters on
 * dynalite), plus the DynamoDB alert ledger and rate limiter. The folder implementations run the same
 * contracts in store/contract.test.ts.
 */
import { randomUUID } from "node:crypto";
import { DeleteItemCommand, DynamoDBClient, QueryCommand } from "@aws-sdk/client-dynamodb";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createTable, type DynaliteHandle, dynamoClientConfig, startDynalite } from "@kneeboard/test-support/dynalite";
import { type S3rverHandle, s3ClientConfig, startS3rver } from "@kneeboard/test-support/s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelChangeContract } from "../../testing/model-change.contract.ts";
import { rebuildLedgerContract } from "../../testing/scheduled.contract.ts";
import { runClaimsContract, runIndexContract, storeContract } from "../../testing/store.contract.ts";
import { runKey } from "../run/index.ts";
import { indexEntryFor } from "../run-index/index.ts";
import { syntheticRun } from "../synthetic/index.ts";
import {
  DynamoAlertLedger,
  DynamoRateLimiter,
  DynamoRebuildLedger,
  DynamoRunClaims,
  DynamoRunIndex,
  S3Store,
  tableDefinition,
} from "./index.ts";

const BUCKET = "kneeboard-results";
let dynalite: DynaliteHandle;
let s3rver: S3rverHandle;
let dynamo: DynamoDBClient;
let s3: S3Client;

beforeAll(async () => {
  [dynalite, s3rver] = await Promise.all([startDynalite(), startS3rver()]);
  dynamo = new DynamoDBClient(dynamoClientConfig(dynalite.endpoint));
  s3 = new S3Client(s3ClientConfig(s3rver.endpoint));
  countContinuedPages();
  await s3rver.createBucket(BUCKET);
});

afterAll(async () => {
  dynamo?.destroy();
  s3?.destroy();
  await Promise.all([dynalite?.close(), s3rver?.close()]);
});

/** Requests that asked for a page after the first, so the suite can show it really paginated. */
const continued = { listObjects: 0, query: 0 };

function countContinuedPages(): void {
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ContinuationToken?: string };
      if (context.commandName === "ListObjectsV2Command" && input.ContinuationToken) continued.listObjects++;
      return next(args);
    },
    { step: "initialize", name: "countContinuedListPages" },
  );
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ExclusiveStartKey?: unknown };
      if (context.commandName === "QueryCommand" && input.ExclusiveStartKey) continued.query++;
      return next(args);
    },
    { step: "initialize", name: "countContinuedQueryPages" },
  );
}

/** A fresh table per test: dynalite creates one in a few ms. */
async function freshTable(): Promise<string> {
  const tableName = `kneeboard-${randomUUID()}`;
  await createTable(dynamo, tableDefinition(tableName).createTableInput);
  return tableName;
}

const doc = syntheticRun({
  targetId: "t-sample",
  startedAt: "2025-01-01T06:00:00Z",
  label: "Sample — ünïcødé",
  route: { gateway: "openrouter", provider: "groq" },
  singleStreamTokensPerSecond: 80,
  ttftMs: 200,
  saturationStreams: 8,
});
const sample = indexEntryFor(runKey(doc), doc);

storeContract("S3Store on s3rver", async () => {
  // A fresh prefix per test keeps tests apart in one bucket and exercises the prefix option.
  const prefix = `t-${randomUUID()}/`;
  return {
    store: new S3Store({ bucketName: BUCKET, client: s3, prefix }),
    contentTypeOf: async (key) =>
      (await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: prefix + key }))).ContentType,
  };
});

let indexTable = "";
runIndexContract(
  "DynamoRunIndex on dynalite",
  async () => {
    indexTable = await freshTable();
    return new DynamoRunIndex({ tableName: indexTable, client: dynamo });
  },
  sample,
  {
    // What a table written before summaries were kept lacks: the target's `series#` items.
    forgetSummaries: async (targetId) => {
      const pk = { S: `series#${targetId}` };
      const found = await dynamo.send(
        new QueryCommand({
          TableName: indexTable,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": pk },
        }),
      );
      expect(found.Items?.length).toBeGreaterThan(0);
      for (const item of found.Items ?? [])
        await dynamo.send(new DeleteItemCommand({ TableName: indexTable, Key: { pk, sk: item.sk as { S: string } } }));
    },
  },
);

rebuildLedgerContract(
  "DynamoRebuildLedger on dynalite",
  async () => new DynamoRebuildLedger({ tableName: await freshTable(), client: dynamo }),
);

runClaimsContract(
  "DynamoRunClaims on dynalite",
  async () => new DynamoRunClaims({ tableName: await freshTable(), client: dynamo }),
);

modelChangeContract("the AWS store (S3Store on s3rver, DynamoRunIndex on dynalite)", async () => ({
  store: new S3Store({ bucketName: BUCKET, client: s3, prefix: `m-${randomUUID()}/` }),
  index: new DynamoRunIndex({ tableName: await freshTable(), client: dynamo }),
}));

describe("DynamoAlertLedger on dynalite", () => {
  it("claims each (alert, state, channel) once", async () => {
    const ledger = new DynamoAlertLedger({ tableName: await freshTable(), client: dynamo });
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
    expect(await ledger.claim("a1", "open", "sns")).toBe(false);
    expect(await ledger.claim("a1", "open", "webhook")).toBe(true);
    expect(await ledger.claim("a1", "resolved", "sns")).toBe(true);
    expect(await ledger.claim("a2", "open", "sns")).toBe(true);
  });

  it("claims again after a release; releasing the unclaimed does nothing", async () => {
    const ledger = new DynamoAlertLedger({ tableName: await freshTable(), client: dynamo });
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
    await ledger.release("a1", "open", "sns");
    await ledger.release("a9", "open", "sns");
    expect(await ledger.claim("a1", "open", "sns")).toBe(true);
    expect(await ledger.claim("a1", "open", "sns")).toBe(false);
  });

  it("gives exactly one of five racing claims true", async () => {
    const ledger = new DynamoAlertLedger({ tableName: await freshTable(), client: dynamo });
    const results = await Promise.all(Array.from({ length: 5 }, () => ledger.claim("a1", "open", "sns")));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe("DynamoRateLimiter on dynalite", () => {
  const windowMs = 60_000;
  const t0 = 1_735_711_200_000; // 2025-01-01T06:00:00Z, a window boundary

  it("allows limit requests in a window, then refuses until the next window", async () => {
    const limiter = new DynamoRateLimiter({ tableName: await freshTable(), client: dynamo });
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await limiter.take("me@example.com", 3, windowMs, t0 + i * 1000));
    expect(taken).toEqual([true, true, true, false]);
    expect(await limiter.take("other@example.com", 3, windowMs, t0 + 5000)).toBe(true);
    expect(await limiter.take("me@example.com", 3, windowMs, t0 + windowMs)).toBe(true);
  });

  it("lets exactly limit of many racing requests through", async () => {
    const limiter = new DynamoRateLimiter({ tableName: await freshTable(), client: dynamo });
    const results = await Promise.all(Array.from({ length: 8 }, () => limiter.take("k", 3, windowMs, t0)));
    expect(results.filter(Boolean)).toHaveLength(3);
  });
});

describe("pagination on the AWS adapters", () => {
  // Declared last: vitest runs a file's tests in order, so the suites above have run.
  it("fetched more than one page from s3rver and from dynalite", () => {
    expect(continued.listObjects).toBeGreaterThan(0);
    expect(continued.query).toBeGreaterThan(0);
  });
});
