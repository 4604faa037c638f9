/**
 * @module The Lambda cost and memory model: the sweep function's memory for a config's plans, and what
 * the deployment costs a day (Lambda, then S3, DynamoDB and CloudFront at catalogue scale).
 */
import type { TargetPlan } from "./target-plan.ts";

/** Lambda memory that gives one full vCPU, MB; CPU grows in proportion to memory. */
export const LAMBDA_MB_PER_VCPU = 1769;
/** Lambda's largest memory, MB (about 6 vCPUs). */
export const LAMBDA_MAX_MB = 10_240;

/**
 * The sweep Lambda's memory for a config's plans: a full vCPU for each core of client the busiest top
 * level is expected to need (its chunk rate over CLIENT_CHUNKS_PER_SECOND_PER_THREAD, rounded up), at
 * least one, at most Lambda's largest. A level over what that carries is flagged client.limited.
 */
export function sweepMemoryMb(plans: Pick<TargetPlan, "clientCoreShare">[]): number {
  const cores = Math.max(1, ...plans.map((p) => Math.ceil(p.clientCoreShare)));
  return Math.min(LAMBDA_MAX_MB, cores * LAMBDA_MB_PER_VCPU);
}

/** Lambda's price (x86_64, us-east-1): per GB-second of compute, per request. */
export const LAMBDA_USD_PER_GB_SECOND = 0.0000166667;
export const LAMBDA_USD_PER_REQUEST = 0.2 / 1_000_000;
/** The publish function's memory, MB (sst.config.ts). */
export const PUBLISH_MEMORY_MB = 2048;
/** Sweeps one publish covers: its queue batches up to 10 messages. */
const SWEEPS_PER_PUBLISH = 10;

/** Schedule slots a day: a `rate(...)` exactly; null for a `cron(...)`, which this does not count. */
export function slotsPerDay(schedule: string): number | null {
  const rate = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(schedule);
  if (!rate) return null;
  const minutes = Number(rate[1]) * { minute: 1, hour: 60, day: 1440 }[rate[2] as "minute" | "hour" | "day"];
  return 1440 / minutes;
}

/** What the deployed Lambdas cost a day for a config's plans: the one computation every figure quotes. */
export interface LambdaCost {
  slotsPerDay: number;
  sweepMemoryMb: number;
  /** Sweep and publish compute, GB-seconds a day. */
  gbSecondsPerDay: number;
  invocationsPerDay: number;
  usdPerDay: number;
}

/**
 * Lambda's charges a day at the expected sweep durations (each sweep's GB-s at the sweep memory, its
 * canary phase included, its continuations as extra invocations) plus publish (one per 10 sweeps, 10 s + 0.015 s per target: its
 * incremental build as the catalogue benchmark measured it, Astro's compile and the pages that list targets, at PUBLISH_MEMORY_MB) and the plan function, on x86_64 prices in
 * us-east-1. Providers' tokens, S3, SQS, DynamoDB, SNS and CloudFront are not in it. Null for a cron schedule.
 */
export function lambdaCostPerDay(plans: TargetPlan[], schedule: string, targets: number): LambdaCost | null {
  const slots = slotsPerDay(schedule);
  if (slots === null) return null;
  const memoryMb = sweepMemoryMb(plans);
  // The canary phase runs in the sweep's last invocation: its time is the sweep's too.
  const sweepSeconds = plans.reduce((sum, p) => sum + p.expectedSeconds + (p.canary?.expectedSeconds ?? 0), 0);
  const sweepInvocations = plans.reduce((sum, p) => sum + p.expected.invocations, 0);
  const publishes = Math.ceil(plans.length / SWEEPS_PER_PUBLISH);
  const publishSeconds = publishes * (PUBLISH_BASE_SECONDS + PUBLISH_SECONDS_PER_TARGET * targets);
  const gbSeconds = slots * (sweepSeconds * (memoryMb / 1024) + publishSeconds * (PUBLISH_MEMORY_MB / 1024));
  const invocations = slots * (1 + sweepInvocations + publishes);
  return {
    slotsPerDay: slots,
    sweepMemoryMb: memoryMb,
    gbSecondsPerDay: gbSeconds,
    invocationsPerDay: invocations,
    usdPerDay: gbSeconds * LAMBDA_USD_PER_GB_SECOND + invocations * LAMBDA_USD_PER_REQUEST,
  };
}

/** A publish's incremental build: Astro's compile of the pages, then per target (the catalogue benchmark's 23.6 s at 1,000). */
export const PUBLISH_BASE_SECONDS = 10;
export const PUBLISH_SECONDS_PER_TARGET = 0.015;

/** AWS's other prices (us-east-1, on demand): S3 requests, DynamoDB request units, CloudFront invalidation paths. */
export const S3_USD_PER_PUT = 0.005 / 1000;
export const S3_USD_PER_GET = 0.0004 / 1000;
export const DYNAMO_USD_PER_WRITE_UNIT = 0.625 / 1_000_000;
export const DYNAMO_USD_PER_READ_UNIT = 0.125 / 1_000_000;
export const CLOUDFRONT_USD_PER_PATH = 0.005;
/** Invalidation paths a month CloudFront does not charge for. */
export const CLOUDFRONT_FREE_PATHS_PER_MONTH = 1000;
/** An index entry's size, KB (a closed-loop run of 6 levels, as `npm run bench` generates): what its write and each read cost. */
export const INDEX_ENTRY_KB = 5;
/** A series summary's item, KB (gzipped; the catalogue benchmark's are 5.4): read and written again with each run. */
export const SUMMARY_KB = 6;
/** Files a publish after sweeps uploads besides their run documents: the catalogue benchmark's 71 pages, the downloads, the feeds. */
export const FILES_PER_PUBLISH = 80;
/** The history the index holds when the estimate is taken, days: publish reads all of it, so reads grow with it. */
export const HISTORY_DAYS = 30;

/** What a deployment of `routes` routes like a config's costs a day, by service (USD), and the output tokens its sweeps ask for. */
export interface ScaleCost {
  routes: number;
  lambda: number;
  s3: number;
  dynamodb: number;
  cloudfront: number;
  usdPerDay: number;
  /** Output tokens a day at most (every measured request at `maxTokens`); the providers bill them. */
  outputTokensPerDay: number;
}

/**
 * The daily cost of `routes` routes, each like one of the config's targets in turn (its scenarios and
 * workloads), after `HISTORY_DAYS` of history: Lambda (`lambdaCostPerDay`); S3 (each run's document
 * and a save per level, each publish's uploads, its reads of the newest document of every series);
 * DynamoDB (each run's index entry written once, its series' summary read and written again; each
 * publish reads the whole index for the regression check, and every series' summary for the build);
 * CloudFront (one invalidation path a publish, past the free 1,000
 * a month). Null for a cron schedule.
 */
export function costAtScale(plans: TargetPlan[], schedule: string, routes: number): ScaleCost | null {
  const slots = slotsPerDay(schedule);
  if (slots === null) return null;
  const groups = new Map<string, TargetPlan[]>();
  for (const p of plans) groups.set(p.targetId, [...(groups.get(p.targetId) ?? []), p]);
  const byTarget = [...groups.values()];
  const scaled = Array.from({ length: routes }, (_, i) => byTarget[i % byTarget.length] ?? []).flat();
  const lambda = lambdaCostPerDay(scaled, schedule, routes);
  if (lambda === null) return null;
  const runs = slots * scaled.length;
  const publishes = slots * Math.ceil(scaled.length / SWEEPS_PER_PUBLISH);
  const levelSaves = slots * scaled.reduce((sum, p) => sum + p.levels.length, 0);
  const puts = 2 * runs + levelSaves + publishes * (FILES_PER_PUBLISH + 2);
  const gets = publishes * (scaled.length + 2);
  const s3 = puts * S3_USD_PER_PUT + gets * S3_USD_PER_GET;
  // A query reads 4 KB per half unit (eventually consistent); the index holds every run of the history.
  const indexKb = runs * HISTORY_DAYS * INDEX_ENTRY_KB;
  // A summary is read with a consistent read (a unit per 4 KB) before it is written again.
  const summaryReads = runs * Math.ceil(SUMMARY_KB / 4) + publishes * scaled.length * (SUMMARY_KB / 4) * 0.5;
  const reads = publishes * (indexKb / 4) * 0.5 + summaryReads;
  const writes = runs * (Math.ceil(INDEX_ENTRY_KB) + Math.ceil(SUMMARY_KB));
  const dynamodb = writes * DYNAMO_USD_PER_WRITE_UNIT + reads * DYNAMO_USD_PER_READ_UNIT;
  const paidPaths = Math.max(0, publishes * 30 - CLOUDFRONT_FREE_PATHS_PER_MONTH) / 30;
  const cloudfront = paidPaths * CLOUDFRONT_USD_PER_PATH;
  const outputTokensPerDay = slots * scaled.reduce((sum, p) => sum + (p.totalRequests ?? 0) * p.workload.maxTokens, 0);
  return {
    routes,
    lambda: lambda.usdPerDay,
    s3,
    dynamodb,
    cloudfront,
    usdPerDay: lambda.usdPerDay + s3 + dynamodb + cloudfront,
    outputTokensPerDay,
  };
}
