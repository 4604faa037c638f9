/**
 * @module The AWS stand-ins a test of the deployed functions runs against, started together on
 * loopback: dynalite with kneeboard's table, s3rver with the results and site buckets, fauxqs for SQS
 * and SNS. The functions' composition root builds its clients from the environment, so this also sets
 * the environment that aims them here (endpoints, region, the one key pair s3rver knows, a private
 * TMPDIR) and clears what would aim them elsewhere; `close` puts every variable back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { tableDefinition } from "@kneeboard/core/aws";
import { createTable, type DynaliteHandle, dynamoClientConfig, startDynalite } from "./dynalite.ts";
import { type FauxqsHandle, fauxqsClientConfig, interceptLocalhostDns, startFauxqs } from "./fauxqs.ts";
import { type S3rverHandle, s3ClientConfig, startS3rver } from "./s3rver.ts";

export const REGION = "us-east-1";
/** The one key pair s3rver accepts (the functions' clients, from the environment, reach it too); dynalite and fauxqs take any. */
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** Variables that would aim the functions at a real account, a real webhook or a real CDN: cleared for the test. */
const CLEARED = ["AWS_PROFILE", "AWS_SESSION_TOKEN", "KNEEBOARD_WEBHOOK_URL", "KNEEBOARD_DISTRIBUTION_ID"];

export interface AwsLocal {
  dynamo: DynaliteHandle;
  s3rver: S3rverHandle;
  fauxqs: FauxqsHandle;
  /** An S3 client on s3rver. */
  s3: S3Client;
  /** Endpoint, region and credentials for an SQS or SNS client on fauxqs. */
  fauxqsClient: ReturnType<typeof fauxqsClientConfig>;
  /** The private `TMPDIR` the functions build under; removed on close. */
  tmp: string;
  /** Sets environment variables for the test; `close` restores them. */
  setEnv(values: Record<string, string>): void;
  /** Restores the environment and DNS, and stops the stand-ins (each stopped even if another fails). */
  close(): Promise<void>;
}

/**
 * Starts the three stand-ins, creates `table` (the core's definition) and `results` and `site` buckets,
 * aims the SDK's `*.localhost` hosts (fauxqs's queue URLs) at loopback, and sets the functions'
 * environment: `SST_RESOURCE_Table`, `SST_RESOURCE_Results`, `KNEEBOARD_SITE_BUCKET`, the endpoints,
 * region and credentials, and a fresh `TMPDIR` named `<name>-tmp-` (removed on close); `clear` names
 * variables to unset besides those that would reach real services.
 */
export async function startAwsLocal(options: {
  table: string;
  results: string;
  site: string;
  name: string;
  clear?: readonly string[];
}): Promise<AwsLocal> {
  const [dynamo, s3rver, fauxqs] = await Promise.all([startDynalite(), startS3rver(), startFauxqs()]);
  const stop = () => Promise.allSettled([dynamo.close(), s3rver.close(), fauxqs.close()]);
  const tableClient = new DynamoDBClient(dynamoClientConfig(dynamo.endpoint));
  try {
    await createTable(tableClient, tableDefinition(options.table).createTableInput);
    await s3rver.createBucket(options.results);
    await s3rver.createBucket(options.site);
  } catch (error) {
    // Nothing holds the handles yet: stop them here, or the s3rver child outlives the test.
    await stop();
    throw error;
  } finally {
    tableClient.destroy();
  }
  const s3 = new S3Client(s3ClientConfig(s3rver.endpoint));
  // fauxqs names its queues `http://sqs.<region>.localhost:<port>/...`, which the SDK then calls:
  // fauxqs's own DNS patch resolves `*.localhost` to loopback for this process until close.
  const restoreDns = interceptLocalhostDns();
  const saved: Record<string, string | undefined> = {};
  const remember = (name: string) => {
    if (!(name in saved)) saved[name] = process.env[name];
  };
  const setEnv = (values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) {
      remember(name);
      process.env[name] = value;
    }
  };
  // The publish function builds under the temp folder: a private one, so parallel runs never share it.
  const privateTmp = mkdtempSync(join(tmpdir(), `${options.name}-tmp-`));
  setEnv({
    TMPDIR: privateTmp,
    SST_RESOURCE_Table: JSON.stringify({ name: options.table }),
    SST_RESOURCE_Results: JSON.stringify({ name: options.results }),
    KNEEBOARD_SITE_BUCKET: options.site,
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3rver.endpoint,
    AWS_ENDPOINT_URL_SQS: fauxqs.endpoint,
    AWS_ENDPOINT_URL_SNS: fauxqs.endpoint,
  });
  for (const name of [...CLEARED, ...(options.clear ?? [])]) {
    remember(name);
    delete process.env[name];
  }
  return {
    dynamo,
    s3rver,
    fauxqs,
    s3,
    fauxqsClient: fauxqsClientConfig(fauxqs.endpoint),
    tmp: privateTmp,
    setEnv,
    async close() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      restoreDns();
      s3.destroy();
      await stop();
      rmSync(privateTmp, { recursive: true, force: true });
    },
  };
}
