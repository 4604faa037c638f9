/// <reference path="./.sst/platform/config.d.ts" />
/**
 * The AWS deployment (docs/deploying.md): CronV2 -> plan -> FIFO queue (one message per (target,
 * scenario), grouped by target) -> sweep (one target per invocation; a sweep near its deadline saves
 * its finished levels under `pending/` in the results bucket and continues in a message to its own
 * queue) -> results bucket + table -> publish queue (batched, so a burst of sweeps rebuilds once) ->
 * publish (alerts to SNS, site rebuild to the site's bucket; a full rebuild of more targets than one
 * invocation builds fans out as page batches to the publish queue). Bad messages are reported back and end
 * in a dead-letter queue.
 * The config is read at deploy time from KNEEBOARD_CONFIG (default `kneeboard.config.json`).
 */
/** The results bucket's keys anyone may read: the store's run documents, alerts and feeds. */
const PUBLIC_RESULT_PATHS = ["runs/*", "alerts.json", "feeds/*"];
/**
 * Every top-level folder of the built site. The deploy uploads a site built from an empty store, and
 * SST's StaticSite serves from its bucket only the files and folders it uploaded (a CloudFront KV store
 * lists them) and the `assets.routes` named here: pages the publish function adds later, under folders
 * the empty site lacks (a target's page), must be routed. e2e-aws-local.test.ts checks the list.
 */
const SITE_FOLDERS = [
  "alerts",
  "assets",
  "at",
  "compare",
  "data",
  "feeds",
  "methodology",
  "models",
  "og",
  "s",
  "targets",
];
/** The Lambda runtime of every function (the code also runs on Node 20, the oldest it supports). */
const RUNTIME = "nodejs22.x";

export default $config({
  app(input) {
    return { name: "kneeboard", removal: input?.stage === "prod" ? "retain" : "remove", home: "aws" };
  },
  async run() {
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { parseConfig } = await import("@kneeboard/core/config");
    const { planConfig, sweepMemoryMb } = await import("@kneeboard/core/plan");
    const configFile = process.env.KNEEBOARD_CONFIG ?? "kneeboard.config.json";
    // Validated as `kneeboard plan` does: a bad config stops the deploy, every problem named. Keys are secrets.
    const config = parseConfig(readFileSync(configFile, "utf8"), { file: configFile, requireKeys: false });
    // The traces the config replays travel beside it, at the paths it names them by (refused outside its folder or over 50 MB).
    const { deployedTraceFiles, loadTraces } = await import("@kneeboard/core/trace");
    const copyConfig = [{ from: configFile, to: "kneeboard.config.json" }, ...deployedTraceFiles(config, configFile)];
    // The bundling that `npm run bench` measures (bench/aws.ts).
    const { lambdaEsbuild } = await import("./functions/bundle.ts");
    const nodejs = { esbuild: lambdaEsbuild };
    // x86_64 stated, not left to SST's default: the packages publish installs are installed for it.
    const lambda = { runtime: RUNTIME, architecture: "x86_64" };
    // Settings of the functions, taken from the deployer's environment when set (docs/deploying.md).
    const { maxInvocations } = await import("./functions/src/lib/deps.ts");
    const sweepEnvironment: Record<string, string> = {};
    if (process.env.KNEEBOARD_SWEEP_MAX_INVOCATIONS)
      // Checked as the sweep reads it: a bad value stops the deploy, not every sweep.
      sweepEnvironment.KNEEBOARD_SWEEP_MAX_INVOCATIONS = String(maxInvocations(process.env));
    const { fanOutTargets } = await import("./functions/src/lib/deps.ts");
    const { PUBLISH_QUEUE_BATCH_SIZE } = await import("@kneeboard/core/scheduled");
    const publishEnvironment: Record<string, string> = {};
    if (process.env.KNEEBOARD_PUBLISH_FANOUT_TARGETS)
      publishEnvironment.KNEEBOARD_PUBLISH_FANOUT_TARGETS = String(fanOutTargets(process.env));
    const webhook = process.env.KNEEBOARD_WEBHOOK_URL
      ? { KNEEBOARD_WEBHOOK_URL: process.env.KNEEBOARD_WEBHOOK_URL }
      : {};
    // What publish's package holds besides its bundle for Astro to build the site there
    // (functions/site-package.ts; src/publish-package.test.ts builds the site from such a package).
    const { publishInstall, PUBLISH_COPY_FILES, writeCorePackage } = await import("./functions/site-package.ts");

    const table = new sst.aws.Dynamo("Table", {
      fields: { pk: "string", sk: "string" },
      primaryIndex: { hashKey: "pk", rangeKey: "sk" },
      ttl: "expiresAt",
    });
    // Raw results: public reads of the run documents, alerts and feeds (the store's public keys), never
    // pending/ or anything else. Not `access: "public"`, which opens every object: a bucket policy of
    // those paths, and the public access block let through for policies (SST blocks public policies
    // unless `access` is "public", so the policy would be refused at deploy). ACLs stay blocked.
    const results = new sst.aws.Bucket("Results", {
      policy: [{ principals: "*", actions: ["s3:GetObject"], paths: PUBLIC_RESULT_PATHS }],
      transform: { publicAccessBlock: { blockPublicPolicy: false, restrictPublicBuckets: false } },
    });
    const secrets = [...new Set(config.targets.flatMap((t) => (t.apiKeyEnv ? [t.apiKeyEnv] : [])))].map(
      (name) => new sst.Secret(name),
    );
    const alerts = new sst.aws.SnsTopic("Alerts");

    const sweepDlq = new sst.aws.Queue("SweepDeadLetters", { fifo: true });
    const sweepQueue = new sst.aws.Queue("SweepQueue", {
      fifo: true,
      visibilityTimeout: "16 minutes",
      dlq: { queue: sweepDlq.arn, retry: 2 },
    });
    const publishDlq = new sst.aws.Queue("PublishDeadLetters");
    const publishQueue = new sst.aws.Queue("PublishQueue", {
      visibilityTimeout: "16 minutes",
      dlq: { queue: publishDlq.arn, retry: 2 },
    });

    // The operator's alarm: any message in a dead-letter queue (a sweep or publish that failed its
    // retries). Its own topic, not Alerts, whose subscribers are the leaderboard's readers.
    const operations = new sst.aws.SnsTopic("Operations");
    if (process.env.KNEEBOARD_OPS_EMAIL)
      new aws.sns.TopicSubscription("OperationsEmail", {
        topic: operations.arn,
        protocol: "email",
        endpoint: process.env.KNEEBOARD_OPS_EMAIL,
      });
    for (const [name, dlq] of [
      ["SweepDeadLetters", sweepDlq],
      ["PublishDeadLetters", publishDlq],
    ] as const)
      new aws.cloudwatch.MetricAlarm(`${name}Alarm`, {
        alarmDescription: `kneeboard: a message reached ${name} (see docs/deploying.md, "Dead letters")`,
        namespace: "AWS/SQS",
        metricName: "ApproximateNumberOfMessagesVisible",
        dimensions: { QueueName: dlq.nodes.queue.name },
        statistic: "Maximum",
        period: 300,
        evaluationPeriods: 1,
        threshold: 0,
        comparisonOperator: "GreaterThanThreshold",
        treatMissingData: "notBreaching",
        alarmActions: [operations.arn],
      });

    const subscribe = new sst.aws.Function("Subscribe", {
      handler: "functions/src/subscribe.handler",
      url: true,
      timeout: "10 seconds",
      link: [table, alerts],
      copyFiles: copyConfig,
      nodejs,
      ...lambda,
    });

    // Built from an empty store, never the deployer's ./data: the site shows "no runs yet" until the first
    // publish builds it from the deployed store. Not purged on a redeploy: publish's pages stay.
    const emptyStore = mkdtempSync(join(tmpdir(), "kneeboard-empty-store-"));
    const site = new sst.aws.StaticSite("Site", {
      path: ".",
      build: { command: `npx kneeboard site --data ${emptyStore} --out site/dist`, output: "site/dist" },
      assets: { purge: false, routes: SITE_FOLDERS },
    });
    // StaticSite's nodes (sst 4.17.1): `assets`, an sst Bucket, and `cdn`, whose `distribution` is CloudFront's.
    const siteBucket = site.nodes.assets;
    const distribution = site.nodes.cdn.nodes.distribution;

    sweepQueue.subscribe(
      {
        handler: "functions/src/sweep.handler",
        timeout: "15 minutes",
        // A full vCPU per core of client the busiest top level is expected to need, at least one (Lambda
        // gives CPU in proportion to memory): the client must not be the bottleneck it measures.
        memory: `${sweepMemoryMb(planConfig(config, undefined, loadTraces(config, configFile)))} MB`,
        // The sweep queue too: a sweep near its deadline continues in a message to its own queue.
        link: [table, results, sweepQueue, publishQueue, ...secrets],
        environment: sweepEnvironment,
        copyFiles: copyConfig,
        nodejs,
        ...lambda,
      },
      // Partial responses: a malformed message or an unknown target is reported, retried, then dead-lettered.
      { batch: { size: 1, partialResponses: true } },
    );
    publishQueue.subscribe(
      {
        handler: "functions/src/publish.handler",
        timeout: "15 minutes",
        memory: "2048 MB",
        // Its own queue too: a full rebuild too large for one invocation fans out as page batches to it.
        link: [table, results, alerts, subscribe, publishQueue],
        environment: {
          ...publishEnvironment,
          KNEEBOARD_SITE_BUCKET: siteBucket.name,
          KNEEBOARD_DISTRIBUTION_ID: distribution.id,
          // The feeds' `self` links and entry links are absolute under it (a custom domain's, when set).
          KNEEBOARD_SITE_URL: site.url,
          ...webhook,
        },
        permissions: [
          // Listing (which run documents are there, what the new build no longer has) is on the bucket.
          { actions: ["s3:ListBucket"], resources: [siteBucket.arn] },
          // GetObject: the swap of a fanned-out rebuild copies its staged pages within the bucket.
          {
            actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
            resources: [$interpolate`${siteBucket.arn}/*`],
          },
          { actions: ["cloudfront:CreateInvalidation"], resources: [distribution.arn] },
        ],
        // Astro runs inside publish: installed as packages, not bundled, at the site's versions. SST
        // installs them with `npm install --os=linux --cpu=x64` (the function's architecture), so
        // esbuild's and rollup's native binaries are Lambda's whatever machine deploys.
        nodejs: { ...nodejs, install: publishInstall() },
        ...lambda,
        // Astro compiles the pages in Lambda, and they import @kneeboard/core, which no registry
        // serves: after SST's install, a bundled copy goes into the package's node_modules.
        hook: { postbuild: async (dir: string) => void (await writeCorePackage(dir)) },
        // The site's sources, and docs/methodology.md, which the methodology page renders.
        copyFiles: [...copyConfig, ...PUBLISH_COPY_FILES],
      },
      // A page batch holds a tenth of what one invocation builds, so a whole batch of them fits one.
      { batch: { size: PUBLISH_QUEUE_BATCH_SIZE, window: "1 minute", partialResponses: true } },
    );

    new sst.aws.CronV2("Schedule", {
      schedule: config.schedule,
      // The slot is the time the schedule was due, which EventBridge Scheduler writes in here (SST sends
      // `{}` unless told), not the moment plan runs: the Scheduler delivers at least once, and a
      // duplicate invocation must plan the same slot, with the same deduplication and run ids.
      event: { time: "<aws.scheduler.scheduled-time>" },
      function: {
        handler: "functions/src/plan.handler",
        timeout: "1 minute",
        link: [sweepQueue],
        copyFiles: copyConfig,
        nodejs,
        ...lambda,
      },
    });

    // The site serves every store key under /data/ (and index.json, each model's models/<key>/ files):
    // the results bucket's own keys have no data/ prefix.
    return { site: site.url, data: $interpolate`${site.url}/data/`, subscribe: subscribe.url };
  },
});
