/**
 * @module The functions' only contact with their environment: SST links (`SST_RESOURCE_<Name>`
 * variables holding JSON, what `Resource` from the sst package reads), the bundled config, the
 * deployment's variables, and the AWS clients. Handlers take everything from here.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CloudFrontCdn,
  DynamoAlertLedger,
  DynamoRateLimiter,
  DynamoRebuildLedger,
  DynamoRunClaims,
  DynamoRunIndex,
  S3PendingRuns,
  S3SiteBucket,
  S3Store,
  SnsChannel,
  SnsSubscriptions,
  SqsQueue,
} from "@kneeboard/core/aws";
import { type Config, parseConfig, type Target } from "@kneeboard/core/config";
import { type Channel, webhookChannel } from "@kneeboard/core/notify";
import { DEFAULT_MAX_INVOCATIONS, FAN_OUT_TARGETS, type FanOutDeps, type SweepDeps } from "@kneeboard/core/scheduled";
import { loadTraces } from "@kneeboard/core/trace";

type Env = NodeJS.ProcessEnv;

/** A linked resource's properties, e.g. `link("Results").name`. */
export function link(name: string, env: Env = process.env): Record<string, string> {
  const raw = env[`SST_RESOURCE_${name}`];
  if (!raw) throw new Error(`resource ${name} is not linked to this function`);
  return JSON.parse(raw) as Record<string, string>;
}

const configFile = (env: Env) => env.KNEEBOARD_CONFIG_FILE ?? "kneeboard.config.json";

/** The config deployed with the functions (copied beside the bundle as `kneeboard.config.json`). */
export function deployedConfig(env: Env = process.env): Config {
  const file = configFile(env);
  // Keys are SST secrets read per target by `apiKeyFor`, not plain variables: parsing does not ask for them.
  return parseConfig(readFileSync(file, "utf8"), { file, requireKeys: false });
}

/** An API key: the SST secret named after the target's `apiKeyEnv`, else that environment variable. */
export function apiKeyFor(apiKeyEnv: string | undefined, env: Env = process.env): string | undefined {
  if (!apiKeyEnv) return undefined;
  const secret = env[`SST_RESOURCE_${apiKeyEnv}`];
  return secret ? (JSON.parse(secret) as { value: string }).value : env[apiKeyEnv];
}

/** The results store and the table's ports. */
export function stores(env: Env = process.env) {
  const tableName = link("Table", env).name as string;
  return {
    store: new S3Store({ bucketName: link("Results", env).name as string }),
    index: new DynamoRunIndex({ tableName }),
    claims: new DynamoRunClaims({ tableName }),
    ledger: new DynamoAlertLedger({ tableName }),
  };
}

/** A linked queue (`SweepQueue`, `PublishQueue`). */
export function queue(name: "SweepQueue" | "PublishQueue", env: Env = process.env): SqsQueue {
  return new SqsQueue({ queueUrl: link(name, env).url as string });
}

/** Invocations one run may use; `KNEEBOARD_SWEEP_MAX_INVOCATIONS` overrides the default. */
export function maxInvocations(env: Env = process.env): number {
  const raw = env.KNEEBOARD_SWEEP_MAX_INVOCATIONS;
  if (raw === undefined || raw === "") return DEFAULT_MAX_INVOCATIONS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`KNEEBOARD_SWEEP_MAX_INVOCATIONS must be a whole number >= 1: ${raw}`);
  return n;
}

/**
 * Targets one publish invocation builds: a full rebuild of more fans out over the publish queue.
 * `KNEEBOARD_PUBLISH_FANOUT_TARGETS` overrides the default (`FAN_OUT_TARGETS`, from the build's cost
 * per target); tests set it low.
 */
export function fanOutTargets(env: Env = process.env): number {
  const raw = env.KNEEBOARD_PUBLISH_FANOUT_TARGETS;
  if (raw === undefined || raw === "") return FAN_OUT_TARGETS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`KNEEBOARD_PUBLISH_FANOUT_TARGETS must be a whole number >= 1: ${raw}`);
  return n;
}

/** How publish fans a full rebuild out: its own queue, the table's ledger of batches, the threshold. */
export function fanOutDeps(env: Env = process.env): FanOutDeps {
  return {
    queue: queue("PublishQueue", env),
    ledger: new DynamoRebuildLedger({ tableName: link("Table", env).name as string }),
    maxTargets: fanOutTargets(env),
  };
}

/** What the sweep use case needs but the invocation's own owner and time. */
export function sweepDeps(env: Env = process.env): Omit<SweepDeps, "owner" | "remainingMs"> {
  const { store, index, claims } = stores(env);
  return {
    config: deployedConfig(env),
    // The traces were copied beside the config at their relative paths (deployedTraceFiles in sst.config.ts).
    traces: loadTraces(deployedConfig(env), configFile(env)),
    store,
    index,
    claims,
    pending: new S3PendingRuns({ bucketName: link("Results", env).name as string }),
    sweepQueue: queue("SweepQueue", env),
    publishQueue: queue("PublishQueue", env),
    apiKeyFor: (target: Target) => apiKeyFor(target.apiKeyEnv, env),
    maxInvocations: maxInvocations(env),
  };
}

/** Where alerts go: the linked topic, and a webhook when `KNEEBOARD_WEBHOOK_URL` is set. */
export function alertChannels(env: Env = process.env): Channel[] {
  const channels: Channel[] = [new SnsChannel({ topicArn: link("Alerts", env).arn as string })];
  if (env.KNEEBOARD_WEBHOOK_URL) channels.push(webhookChannel(env.KNEEBOARD_WEBHOOK_URL));
  return channels;
}

/** Where the site is built, the site's bucket, its URL and, when the site has one, its CDN. */
export function siteDeps(env: Env = process.env) {
  const bucketName = env.KNEEBOARD_SITE_BUCKET;
  if (!bucketName) throw new Error("KNEEBOARD_SITE_BUCKET is not set");
  const distributionId = env.KNEEBOARD_DISTRIBUTION_ID;
  return {
    // Lambda may write only under /tmp (what tmpdir() is there); a test points TMPDIR elsewhere.
    outDir: join(tmpdir(), "kneeboard-site"),
    siteBucket: new S3SiteBucket({ bucketName }),
    cdn: distributionId ? new CloudFrontCdn({ distributionId }) : undefined,
    /** The site's URL (`KNEEBOARD_SITE_URL`), under which the feeds link themselves and their entries. */
    siteUrl: env.KNEEBOARD_SITE_URL || undefined,
    subscribeUrl: link("Subscribe", env).url as string,
    /** Which runs the published figures are taken over (the config's `standing`). */
    standing: deployedConfig(env).standing,
    siteRoot: siteRoot(env),
  };
}

/**
 * The site's sources in the deployed package: `site/` beside the bundle in the function's folder
 * (`LAMBDA_TASK_ROOT`, which Lambda sets), where `copyFiles` puts them. A bundle cannot find them from
 * its own location; elsewhere (tests, tsx) the site package finds its own.
 */
export function siteRoot(env: Env = process.env): string | undefined {
  return env.LAMBDA_TASK_ROOT ? join(env.LAMBDA_TASK_ROOT, "site") : undefined;
}

/** What the subscribe endpoint needs. */
export function subscribeDeps(env: Env = process.env) {
  return {
    subscriptions: new SnsSubscriptions({ topicArn: link("Alerts", env).arn as string }),
    knownTargetIds: deployedConfig(env).targets.map((t) => t.id),
    limiter: new DynamoRateLimiter({ tableName: link("Table", env).name as string }),
  };
}
