/** @module `publish`, after sweeps (its queue batches them): regression check, alert delivery, site rebuild and upload. */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { SNSClient } from "@aws-sdk/client-sns";
import { S3Store } from "@kneeboard/core/aws";
import { deliver, snsChannel, webhookChannel } from "@kneeboard/core/notify";
import { evaluateStore } from "@kneeboard/core/regress/check";
import { buildSite } from "@kneeboard/site/build";
import { link, stores } from "./lib/deps.ts";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  json: "application/json",
  csv: "text/csv",
  xml: "application/atom+xml",
  js: "text/javascript",
};

const RUNS_PREFIX = "data/runs/";

export async function handler(): Promise<{ alerts: number; files: number }> {
  const { store, index, ledger } = stores();
  const now = new Date().toISOString();
  const { alerts } = await evaluateStore({ store, index, now, warn: (m) => console.warn(m) });
  const channels = [snsChannel(new SNSClient({}), link("Alerts").arn as string)];
  if (process.env.KNEEBOARD_WEBHOOK_URL) channels.push(webhookChannel(process.env.KNEEBOARD_WEBHOOK_URL));
  await deliver(alerts, { ledger, channels, warn: (m) => console.warn(m) });

  // Lambda may write only under /tmp.
  const outDir = "/tmp/kneeboard-site";
  await buildSite({
    store,
    index,
    outDir,
    now,
    subscribeUrl: link("Subscribe").url as string,
    warn: (m) => console.warn(m),
  });
  const s3 = new S3Client({});
  const bucket = process.env.KNEEBOARD_SITE_BUCKET;
  if (!bucket) throw new Error("KNEEBOARD_SITE_BUCKET is not set");
  // A stored run document never changes: upload only the ones the site bucket does not hold yet.
  const uploaded = new Set(await new S3Store({ bucketName: bucket, client: s3 }).list(RUNS_PREFIX));
  let files = 0;
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(outDir, path).split(sep).join("/");
    if (uploaded.has(key)) continue;
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: await readFile(path),
        ContentType: TYPES[key.split(".").pop() ?? ""],
      }),
    );
    files++;
  }
  const distribution = process.env.KNEEBOARD_DISTRIBUTION_ID;
  if (distribution) {
    await new CloudFrontClient({}).send(
      new CreateInvalidationCommand({
        DistributionId: distribution,
        InvalidationBatch: { CallerReference: now, Paths: { Quantity: 1, Items: ["/*"] } },
      }),
    );
  }
  return { alerts: alerts.length, files };
}
