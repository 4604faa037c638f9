/**
 * `sst.config.ts` loaded with recording stand-ins for `$config`, `sst`, `aws` and the pulumi helpers
 * (the sst CLI cannot run here): every component exists and every function is linked to what it uses.
 * Component arguments and nodes are checked against sst 4.17.1, the version package.json pins.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLIENT_CHUNKS_PER_SECOND_PER_THREAD } from "@kneeboard/core/plan";
import { FAN_OUT_TARGETS, PUBLISH_QUEUE_BATCH_SIZE, targetsPerBatch } from "@kneeboard/core/scheduled";
import { beforeAll, describe, expect, it } from "vitest";
import { PUBLISH_COPY_FILES } from "../site-package.ts";
import { type LoadedSstConfig, linkName, loadSstConfig, type Recorded } from "../testing/sst.ts";

const target = (id: string) => ({
  id,
  label: id,
  baseURL: "https://example.com/v1",
  model: "m",
  route: { gateway: "direct" },
});
let loaded: LoadedSstConfig;
let configFile: string;
const byName = (name: string): Recorded => loaded.byName(name);
const linkNames = (fn: Record<string, unknown>) => (fn.link as unknown[]).map(linkName).sort();
const publishFn = () => byName("PublishQueue").subscriptions[0]?.fn as Record<string, unknown>;
const sweepFn = () => byName("SweepQueue").subscriptions[0]?.fn as Record<string, unknown>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-sst-"));
  configFile = join(dir, "config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      targets: [
        { ...target("a"), apiKeyEnv: "OPENROUTER_API_KEY" },
        { ...target("b"), apiKeyEnv: "OPENROUTER_API_KEY" },
        // A fast route: 64 streams at 2,000 tok/s each ask for 128,000 chunks/s at the top level.
        { ...target("c"), apiKeyEnv: "GROQ_API_KEY", expectedOutputTokensPerSecond: 2000 },
      ],
      workload: { concurrency: [1, 8, 64] },
      schedule: "rate(4 hours)",
    }),
  );
  loaded = await loadSstConfig({ KNEEBOARD_CONFIG: configFile });
});

describe("sst.config.ts", () => {
  it("declares every component once", () => {
    expect(loaded.components.map((c) => `${c.type} ${c.name}`).sort()).toEqual(
      [
        "aws.cloudwatch.MetricAlarm PublishDeadLettersAlarm",
        "aws.cloudwatch.MetricAlarm SweepDeadLettersAlarm",
        "sst.aws.SnsTopic Operations",
        "sst.aws.Bucket Results",
        "sst.aws.CronV2 Schedule",
        "sst.aws.Dynamo Table",
        "sst.aws.Function Subscribe",
        "sst.aws.Queue PublishDeadLetters",
        "sst.aws.Queue PublishQueue",
        "sst.aws.Queue SweepDeadLetters",
        "sst.aws.Queue SweepQueue",
        "sst.aws.SnsTopic Alerts",
        "sst.aws.StaticSite Site",
        "sst.Secret GROQ_API_KEY",
        "sst.Secret OPENROUTER_API_KEY",
      ].sort(),
    );
  });

  it("schedules plan at the config's schedule, linked to the sweep queue only", () => {
    const cron = byName("Schedule").args as { schedule: string; function: Record<string, unknown> };
    expect(cron.schedule).toBe("rate(4 hours)");
    expect(cron.function.handler).toBe("functions/src/plan.handler");
    expect(linkNames(cron.function)).toEqual(["SweepQueue"]);
  });

  it("sends plan the slot's scheduled time, which a duplicate invocation repeats (plan.test.ts invokes plan with it)", () => {
    // SST writes `event` as the schedule target's input (JSON); EventBridge Scheduler substitutes its
    // context attribute there on each invocation. Without `event`, plan would get `{}` and take its own clock.
    const cron = byName("Schedule").args as { event?: unknown };
    expect(cron.event).toEqual({ time: "<aws.scheduler.scheduled-time>" });
  });

  it("runs sweep one message at a time within 15 minutes, from a FIFO queue with a dead-letter queue, continuing on it", () => {
    const queue = byName("SweepQueue");
    expect(queue.args.fifo).toBe(true);
    expect(queue.args.dlq).toMatchObject({ retry: 2 });
    const [sweep] = queue.subscriptions;
    expect(sweep?.fn.handler).toBe("functions/src/sweep.handler");
    expect(sweep?.fn.timeout).toBe("15 minutes");
    // A full vCPU per client thread the busiest top level needs (Lambda's CPU grows with memory; 1,769 MB
    // is one vCPU): target c's 128,000 chunks/s over CLIENT_CHUNKS_PER_SECOND_PER_THREAD, rounded up.
    const cores = Math.ceil(128_000 / CLIENT_CHUNKS_PER_SECOND_PER_THREAD);
    expect(cores).toBeGreaterThan(1);
    expect(sweep?.fn.memory).toBe(`${cores * 1769} MB`);
    // Partial responses: a rejected message is retried, then dead-lettered, not deleted with the batch.
    expect(sweep?.options).toEqual({ batch: { size: 1, partialResponses: true } });
    // The queue's visibility outlasts the function, so a live sweep's message is not delivered twice.
    expect(queue.args.visibilityTimeout).toBe("16 minutes");
    expect(linkNames(sweep?.fn as Record<string, unknown>)).toEqual(
      ["GROQ_API_KEY", "OPENROUTER_API_KEY", "PublishQueue", "Results", "SweepQueue", "Table"].sort(),
    );
  });

  it("links publish to what it reads and writes, batched so a burst of sweeps rebuilds once", () => {
    const [publish] = byName("PublishQueue").subscriptions;
    expect(publish?.fn.handler).toBe("functions/src/publish.handler");
    // Its own queue: a full rebuild too large for one invocation fans out as page batches to it.
    expect(linkNames(publish?.fn as Record<string, unknown>)).toEqual([
      "Alerts",
      "PublishQueue",
      "Results",
      "Subscribe",
      "Table",
    ]);
    expect(publish?.options).toMatchObject({ batch: { window: "1 minute", partialResponses: true } });
    expect(byName("PublishQueue").args.dlq).toMatchObject({ retry: 2 });
    const actions = ((publish?.fn.permissions ?? []) as { actions: string[] }[]).flatMap((p) => p.actions);
    expect(actions.sort()).toEqual([
      "cloudfront:CreateInvalidation",
      "s3:DeleteObject",
      "s3:GetObject",
      "s3:ListBucket",
      "s3:PutObject",
    ]);
    // The site build needs its sources and the methodology's markdown beside the bundle, and a copy of
    // @kneeboard/core in the package's node_modules (publish-package.test.ts builds the site from it).
    expect(publish?.fn.copyFiles).toEqual(expect.arrayContaining(PUBLISH_COPY_FILES));
    expect(typeof (publish?.fn.hook as { postbuild?: unknown } | undefined)?.postbuild).toBe("function");
  });

  it("sizes page batches by the queue's batch: a whole batch of them is at most what one invocation builds", () => {
    const [publish] = byName("PublishQueue").subscriptions;
    const size = (publish?.options as { batch?: { size?: number } } | undefined)?.batch?.size ?? 0;
    expect(size).toBe(PUBLISH_QUEUE_BATCH_SIZE);
    expect(size * targetsPerBatch(FAN_OUT_TARGETS)).toBeLessThanOrEqual(FAN_OUT_TARGETS);
    // 450 s of a 15-minute invocation at 0.616 s a target (the catalogue's full build): 730 targets, 73 a batch.
    expect([FAN_OUT_TARGETS, targetsPerBatch(FAN_OUT_TARGETS)]).toEqual([730, 73]);
    // An invocation ends before its messages' visibility does: a batch is redelivered only when it failed.
    expect(byName("PublishQueue").args.visibilityTimeout).toBe("16 minutes");
    expect(publish?.fn.timeout).toBe("15 minutes");
  });

  it("bundles every function the way the bench measures it", async () => {
    const { lambdaEsbuild } = await import("../bundle.ts");
    const fns = [
      byName("Subscribe").args,
      (byName("Schedule").args as { function: Record<string, unknown> }).function,
      ...byName("SweepQueue").subscriptions.map((s) => s.fn),
      ...byName("PublishQueue").subscriptions.map((s) => s.fn),
    ];
    expect(fns).toHaveLength(4);
    for (const fn of fns) expect((fn.nodejs as { esbuild: unknown }).esbuild).toBe(lambdaEsbuild);
  });

  it("gives subscribe a URL and only the table and topic", () => {
    const subscribe = byName("Subscribe").args;
    expect(subscribe.url).toBe(true);
    expect(linkNames(subscribe)).toEqual(["Alerts", "Table"]);
  });

  it("grants publish the site bucket by StaticSite's nodes: listing on the bucket, objects under it, its CDN", () => {
    // StaticSite's nodes in sst 4.17.1 are `assets` (an sst Bucket: name, arn) and `cdn` (nodes.distribution).
    const fn = publishFn();
    const environment = Object.fromEntries(Object.entries(fn.environment as object).map(([k, v]) => [k, String(v)]));
    expect(environment).toEqual({
      KNEEBOARD_SITE_BUCKET: "Site.nodes.assets.name",
      KNEEBOARD_DISTRIBUTION_ID: "Site.nodes.cdn.nodes.distribution.id",
      KNEEBOARD_SITE_URL: "Site.url",
    });
    const permissions = (fn.permissions as { actions: string[]; resources: unknown[] }[]).map((p) => ({
      actions: p.actions,
      resources: p.resources.map(String),
    }));
    expect(permissions).toEqual([
      { actions: ["s3:ListBucket"], resources: ["Site.nodes.assets.arn"] },
      { actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"], resources: ["Site.nodes.assets.arn/*"] },
      { actions: ["cloudfront:CreateInvalidation"], resources: ["Site.nodes.cdn.nodes.distribution.arn"] },
    ]);
  });

  it("alarms on any message in either dead-letter queue, to the operations topic (an email when KNEEBOARD_OPS_EMAIL is set)", async () => {
    for (const dlq of ["SweepDeadLetters", "PublishDeadLetters"]) {
      const alarm = byName(`${dlq}Alarm`).args as Record<string, unknown>;
      expect(alarm).toMatchObject({
        namespace: "AWS/SQS",
        metricName: "ApproximateNumberOfMessagesVisible",
        threshold: 0,
        comparisonOperator: "GreaterThanThreshold",
      });
      expect(String((alarm.dimensions as { QueueName: unknown }).QueueName)).toBe(`${dlq}.nodes.queue.name`);
      expect((alarm.alarmActions as unknown[]).map(String)).toEqual(["Operations.arn"]);
    }
    const withEmail = await loadSstConfig({ KNEEBOARD_CONFIG: configFile, KNEEBOARD_OPS_EMAIL: "ops@example.com" });
    expect(withEmail.byName("OperationsEmail").args).toMatchObject({ protocol: "email", endpoint: "ops@example.com" });
  });

  it("runs every function on nodejs22.x, x86_64", () => {
    const fns = loaded.functions();
    expect(fns).toHaveLength(4);
    for (const { fn } of fns) expect([fn.runtime, fn.architecture]).toEqual(["nodejs22.x", "x86_64"]);
  });

  it("installs publish's Astro and vega at the site's own versions, for the function's architecture", () => {
    // SST runs `npm install --platform=linux --os=linux --arch=x64 --cpu=x64` (arm64 for arm64) in the
    // function's folder, so native binaries (esbuild, rollup) are Lambda's whatever machine deploys;
    // a package without a version there is written `"*"`: the newest, which may not run the site.
    const site = JSON.parse(readFileSync(new URL("../../site/package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const fn = publishFn();
    expect((fn.nodejs as { install: unknown }).install).toEqual({
      astro: site.dependencies.astro,
      vega: site.dependencies.vega,
      "vega-lite": site.dependencies["vega-lite"],
    });
    expect(fn.architecture).toBe("x86_64");
  });

  it("makes only runs/, alerts.json and feeds/ of the results bucket public, the access block letting that policy in", () => {
    const args = byName("Results").args as {
      access?: unknown;
      policy: { principals: unknown; actions: string[]; paths: string[] }[];
      transform: { publicAccessBlock: Record<string, boolean> };
    };
    // Not `access: "public"`: that opens every object, pending/ included.
    expect(args.access).toBeUndefined();
    expect(args.policy).toEqual([
      { principals: "*", actions: ["s3:GetObject"], paths: ["runs/*", "alerts.json", "feeds/*"] },
    ]);
    // SST's access block refuses public policies (blockPublicPolicy, restrictPublicBuckets) unless
    // `access` is "public"; ACLs stay blocked.
    expect(args.transform.publicAccessBlock).toEqual({ blockPublicPolicy: false, restrictPublicBuckets: false });
  });

  it("builds the deployed site from an empty store, and keeps what publish uploaded on a redeploy", () => {
    const args = byName("Site").args as {
      build: { command: string; output: string };
      assets: { purge: boolean; routes: string[] };
    };
    const [, dataDir] = /--data (\S+)/.exec(args.build.command) ?? [];
    expect(dataDir).toBeDefined();
    expect(readdirSync(dataDir as string)).toEqual([]);
    expect(args.build.command).toMatch(/--out site\/dist$/);
    expect(args.assets.purge).toBe(false);
    expect(args.assets.routes).toEqual(expect.arrayContaining(["targets", "models", "data", "feeds"]));
  });

  it("outputs the site URL, the data URL under the site (the store's keys are served at /data/) and subscribe", () => {
    expect(Object.keys(loaded.outputs).sort()).toEqual(["data", "site", "subscribe"]);
    expect(String(loaded.outputs.data)).toBe("Site.url/data/");
  });

  it("passes KNEEBOARD_SWEEP_MAX_INVOCATIONS to sweep and KNEEBOARD_WEBHOOK_URL to publish only when set", async () => {
    expect(sweepFn().environment).toEqual({});
    expect(publishFn().environment).not.toHaveProperty("KNEEBOARD_WEBHOOK_URL");
    const set = await loadSstConfig({
      KNEEBOARD_CONFIG: configFile,
      KNEEBOARD_SWEEP_MAX_INVOCATIONS: "6",
      KNEEBOARD_WEBHOOK_URL: "https://hooks.example.com/T1",
    });
    const subscription = (name: string) => set.byName(name).subscriptions[0]?.fn as { environment: object };
    expect(subscription("SweepQueue").environment).toEqual({ KNEEBOARD_SWEEP_MAX_INVOCATIONS: "6" });
    expect(subscription("PublishQueue").environment).toMatchObject({
      KNEEBOARD_WEBHOOK_URL: "https://hooks.example.com/T1",
    });
    expect(publishFn().environment).not.toHaveProperty("KNEEBOARD_PUBLISH_FANOUT_TARGETS");
    const fanOut = await loadSstConfig({ KNEEBOARD_CONFIG: configFile, KNEEBOARD_PUBLISH_FANOUT_TARGETS: "200" });
    const fanOutFn = fanOut.byName("PublishQueue").subscriptions[0]?.fn as { environment: object };
    expect(fanOutFn.environment).toMatchObject({ KNEEBOARD_PUBLISH_FANOUT_TARGETS: "200" });
    await expect(
      loadSstConfig({ KNEEBOARD_CONFIG: configFile, KNEEBOARD_PUBLISH_FANOUT_TARGETS: "none" }),
    ).rejects.toThrow(/KNEEBOARD_PUBLISH_FANOUT_TARGETS must be a whole number/);
    // A bad value stops the deploy, as the sweep would have stopped on it.
    await expect(loadSstConfig({ KNEEBOARD_CONFIG: configFile, KNEEBOARD_SWEEP_MAX_INVOCATIONS: "0" })).rejects.toThrow(
      /KNEEBOARD_SWEEP_MAX_INVOCATIONS must be a whole number/,
    );
  });

  it("deploys the traces a config replays beside it, at the paths it names them by, and refuses one outside its folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-sst-trace-"));
    mkdirSync(join(dir, "traces"));
    writeFileSync(join(dir, "traces", "t.jsonl"), '{"timestamp": 0, "input_length": 10, "output_length": 5}\n');
    const file = join(dir, "config.json");
    const replaying = (trace: string) =>
      JSON.stringify({
        targets: [target("a")],
        workload: { arrival: { mode: "trace", file: trace, format: "mooncake" } },
      });
    writeFileSync(file, replaying("traces/t.jsonl"));
    const set = await loadSstConfig({ KNEEBOARD_CONFIG: file });
    const sweep = set.byName("SweepQueue").subscriptions[0]?.fn as { copyFiles: unknown[] };
    expect(sweep.copyFiles).toEqual([
      { from: file, to: "kneeboard.config.json" },
      { from: join(dir, "traces", "t.jsonl"), to: "traces/t.jsonl" },
    ]);
    writeFileSync(file, replaying("../t.jsonl"));
    await expect(loadSstConfig({ KNEEBOARD_CONFIG: file })).rejects.toThrow(/outside the config's folder/);
  });
});
