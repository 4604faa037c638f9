/**
 * @module Scale and cost of the AWS deployment: the sweep bundle's size (minified, the runtime's AWS SDK
 * left external) and a planning table for 10, 100 and 1000 targets at the default workload and schedule.
 */

import { DEFAULT_WORKLOAD, parseConfig } from "@kneeboard/core/config";
import { lambdaCostPerDay, planConfig } from "@kneeboard/core/plan";
import { lambdaEsbuild } from "@kneeboard/functions/bundle";
import { build } from "esbuild";

const LAMBDA_LIMIT_S = 15 * 60;

/**
 * `kneeboard plan`'s cost of n public targets at the default workload and schedule: n routes of one
 * model, the first its reference, so each runs the default canary.
 */
function costOf(n: number) {
  const targets = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    label: `t${i}`,
    baseURL: "https://example.com/v1",
    model: "m",
    route: { gateway: "direct" },
    ...(i === 0 ? { reference: true } : {}),
  }));
  const config = parseConfig(JSON.stringify({ targets }), { file: "bench", requireKeys: false });
  return lambdaCostPerDay(planConfig(config), config.schedule, n);
}

/** Seconds one sweep takes: each level runs ceil(requests / N) waves of one request's end-to-end time. */
function sweepSeconds(perStreamTokensPerSecond: number, ttftSeconds: number): number {
  const w = DEFAULT_WORKLOAD;
  const requests = w.requestsPerLevel ?? 64;
  const e2e = ttftSeconds + w.maxTokens / perStreamTokensPerSecond;
  return w.concurrency.reduce((sum, n) => sum + Math.ceil((requests + w.warmupRequests) / n) * e2e, 0);
}

export async function benchAws(print: (line: string) => void): Promise<void> {
  const result = await build({
    entryPoints: [new URL("../functions/src/sweep.ts", import.meta.url).pathname],
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["@aws-sdk/*"],
    ...lambdaEsbuild,
    write: false,
    logLevel: "silent",
  });
  const bytes = result.outputFiles.reduce((sum, f) => sum + f.contents.byteLength, 0);
  print(`\nsweep bundle (minified, @aws-sdk/* external): ${(bytes / 1024).toFixed(0)} KB (goal < 400 KB)`);

  const typical = sweepSeconds(50, 0.5);
  const slow = sweepSeconds(20, 1.5);
  print(
    `one sweep at the default workload: ${typical.toFixed(0)} s at 50 tok/s per stream, ${slow.toFixed(0)} s at 20 tok/s (TTFT 1.5 s); Lambda limit ${LAMBDA_LIMIT_S} s`,
  );
  print("targets  invocations/day  GB-s/day   USD/day  USD/month  sweep fits 15 min (typical / slow)");
  for (const targets of [10, 100, 1000]) {
    const cost = costOf(targets);
    if (!cost) continue;
    const usd = cost.usdPerDay;
    print(
      `${String(targets).padStart(7)}  ${String(cost.invocationsPerDay).padStart(15)}  ${cost.gbSecondsPerDay.toFixed(0).padStart(8)}  ${usd.toFixed(2).padStart(8)}  ${(usd * 30).toFixed(2).padStart(9)}  ${typical < LAMBDA_LIMIT_S ? "yes" : "no"} / ${slow < LAMBDA_LIMIT_S ? "yes" : "no: continues in a follow-up invocation"}`,
    );
  }
  print(
    "(Lambda compute and requests only; DynamoDB, S3, SQS and CloudFront add cents at these volumes. The sweep waits on the network, so most GB-s are idle time.)",
  );
}
