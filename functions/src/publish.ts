/**
 * @module `publish`, after sweeps (its queue batches them): regression check, alert delivery, site
 * rebuild and upload, CDN invalidation; a full rebuild too large for one invocation fans out as page
 * batches to its own queue. A malformed message is reported back so it is dead-lettered.
 */

import { fileURLToPath } from "node:url";
import { type PublishSummary, publishBatch } from "@kneeboard/core/scheduled";
import { buildSite, siteCodeVersion } from "@kneeboard/site/build";
import { alertChannels, fanOutDeps, siteDeps, stores } from "./lib/deps.ts";
import { records, type SqsEvent } from "./lib/sqs.ts";

export async function handler(event?: SqsEvent): Promise<PublishSummary> {
  const { store, index, ledger } = stores();
  const { outDir, siteBucket, cdn, siteUrl, subscribeUrl, standing, siteRoot } = siteDeps();
  const warn = (m: string) => console.warn(m);
  const summary = await publishBatch(records(event), {
    store,
    index,
    ledger,
    channels: alertChannels(),
    buildSite: (outDir, now, only) =>
      buildSite({ store, index, outDir, now, only, subscribeUrl, standing, siteRoot, warn }),
    // The site's sources and this handler's own code (its bundle, deployed): pages built by other code are rebuilt.
    siteVersion: await siteCodeVersion(siteRoot, [fileURLToPath(import.meta.url)]),
    outDir,
    siteBucket,
    cdn,
    siteUrl,
    fanOut: fanOutDeps(),
    now: new Date().toISOString(),
  });
  const { batchItemFailures, ...counts } = summary;
  console.log(JSON.stringify({ publish: counts, failures: batchItemFailures.length }));
  return summary;
}
