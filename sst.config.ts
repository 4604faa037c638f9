/// <reference path="./.sst/platform/config.d.ts" />
/**
 * The AWS deployment (docs/deploying.md): CronV2 -> plan -> FIFO queue (one message per target, grouped
 * by target) -> sweep (one target per invocation; a sweep near its deadline saves its finished levels
 * under `pending/` in the results bucket and continues in a message to its own queue) -> results
 * bucket + table -> publish queue (batched, so a burst of sweeps rebuilds once) -> publish (alerts to
 * SNS, site rebuild to the site's bucket). Bad messages are reported back and end in a dead-letter queue.
 * The config is read at deploy time from KNEEBOARD_CONFIG (default `kneeboard.config.json`).
 */
export default $config({
  app(input) {
    return { name: "kneeboard", removal: input?.stage === "prod" ? "retain" : "remove", home: "aws" };
  },
  async run() {
    const { readFileSync } = await import("node:fs");
    const { parseConfig } = await import("@kneeboard/core/config");
    const { planConfig, sweepMemoryMb } = await import("@kneeboard/core/plan");
    const configFile = process.env.KNEEBOARD_CONFIG ?? "kneeboard.config.json";
    // Validated as `kneeboard plan` does: a bad config stops the deploy, every problem named. Keys are secrets.
    const config = parseConfig(readFileSync(configFile, "utf8"), { file: configFile, requireKeys: false });
    const copyConfig = [{ from: configFile, to: "kneeboard.config.json" }];
    // The bundling that `npm run bench` measures (bench/aws.ts).
    const { lambdaEsbuild } = await import("./functions/bundle.ts");
    const nodejs = { esbuild: lambdaEsbuild };

    const table = new sst.aws.Dynamo("Table", {
      fields: { pk: "string", sk: "string" },
      primaryIndex: { hashKey: "pk", rangeKey: "sk" },
      ttl: "expiresAt",
    });
    // Raw results: public reads of the published prefixes only (data/, runs/, feeds/), never index/ or state/.
    const results = new sst.aws.Bucket("Results", {
      transform: {
        policy: (args: { policy: unknown }) => {
          args.policy = $jsonStringify({
            Version: "2012-10-17",
            Statement: ["data/*", "runs/*", "feeds/*"].map((prefix) => ({
              Effect: "Allow",
              Principal: "*",
              Action: "s3:GetObject",
              Resource: $interpolate`arn:aws:s3:::${results.name}/${prefix}`,
            })),
          });
        },
      },
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

    const subscribe = new sst.aws.Function("Subscribe", {
      handler: "functions/src/subscribe.handler",
      url: true,
      timeout: "10 seconds",
      link: [table, alerts],
      copyFiles: copyConfig,
      nodejs,
    });

    const site = new sst.aws.StaticSite("Site", {
      path: ".",
      build: { command: "npx kneeboard site --out site/dist", output: "site/dist" },
    });

    sweepQueue.subscribe(
      {
        handler: "functions/src/sweep.handler",
        timeout: "15 minutes",
        // A full vCPU per core of client the busiest top level is expected to need, at least one (Lambda
        // gives CPU in proportion to memory): the client must not be the bottleneck it measures.
        memory: `${sweepMemoryMb(planConfig(config))} MB`,
        // The sweep queue too: a sweep near its deadline continues in a message to its own queue.
        link: [table, results, sweepQueue, publishQueue, ...secrets],
        copyFiles: copyConfig,
        nodejs,
      },
      // Partial responses: a malformed message or an unknown target is reported, retried, then dead-lettered.
      { batch: { size: 1, partialResponses: true } },
    );
    publishQueue.subscribe(
      {
        handler: "functions/src/publish.handler",
        timeout: "15 minutes",
        memory: "2048 MB",
        link: [table, results, alerts, subscribe],
        environment: {
          KNEEBOARD_SITE_BUCKET: site.nodes.bucket.bucket,
          KNEEBOARD_DISTRIBUTION_ID: site.nodes.cdn.nodes.distribution.id,
        },
        permissions: [
          { actions: ["s3:PutObject"], resources: [$interpolate`${site.nodes.bucket.arn}/*`] },
          { actions: ["cloudfront:CreateInvalidation"], resources: ["*"] },
        ],
        // Astro runs inside publish: installed as packages, not bundled.
        nodejs: { ...nodejs, install: ["astro", "vega", "vega-lite"] },
        // The methodology page renders docs/methodology.md, so the docs travel with the site sources.
        copyFiles: [...copyConfig, { from: "site", to: "site" }, { from: "docs", to: "docs" }],
      },
      { batch: { size: 10, window: "1 minute", partialResponses: true } },
    );

    new sst.aws.CronV2("Schedule", {
      schedule: config.schedule,
      function: {
        handler: "functions/src/plan.handler",
        timeout: "1 minute",
        link: [sweepQueue],
        copyFiles: copyConfig,
        nodejs,
      },
    });

    return { site: site.url, data: $interpolate`https://${results.domain}/data/`, subscribe: subscribe.url };
  },
});
