/**
 * `sst.config.ts` loaded with recording stand-ins for `$config`, `sst`, `aws` and the pulumi helpers
 * (the sst CLI cannot run here): every component exists and every function is linked to what it uses.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLIENT_CHUNKS_PER_SECOND_PER_THREAD } from "@kneeboard/core/plan";
import { beforeAll, describe, expect, it } from "vitest";

interface Recorded {
  type: string;
  name: string;
  args: Record<string, unknown>;
  subscriptions: { fn: Record<string, unknown>; options: unknown }[];
}

const components: Recorded[] = [];

/** A deploy-time output: any property is another output; as text it names its path. */
function output(path: string): unknown {
  return new Proxy(() => {}, {
    get: (_t, prop) =>
      prop === Symbol.toPrimitive || prop === "toString"
        ? () => path
        : prop === "toJSON"
          ? () => path
          : output(`${path}.${String(prop)}`),
  });
}

/** A stand-in component class: `new` records the component and gives back a proxy of its outputs. */
function componentClass(type: string) {
  return new Proxy(class {}, {
    construct: (_target, [name, args = {}]: [string, Record<string, unknown>?]) => {
      const record: Recorded = { type, name, args, subscriptions: [] };
      components.push(record);
      return new Proxy(
        {},
        {
          get: (_t, prop) =>
            prop === "subscribe"
              ? (fn: Record<string, unknown>, options: unknown) => record.subscriptions.push({ fn, options })
              : prop === "__record"
                ? record
                : output(`${name}.${String(prop)}`),
        },
      );
    },
  });
}

function namespace(prefix: string): unknown {
  return new Proxy(
    {},
    {
      get: (_t, prop) =>
        /^[A-Z]/.test(String(prop))
          ? componentClass(`${prefix}.${String(prop)}`)
          : namespace(`${prefix}.${String(prop)}`),
    },
  );
}

const g = globalThis as Record<string, unknown>;
const target = (id: string) => ({
  id,
  label: id,
  baseURL: "https://example.com/v1",
  model: "m",
  route: { gateway: "direct" },
});
const byName = (name: string) => components.find((c) => c.name === name) as Recorded;
const linkNames = (fn: Record<string, unknown>) =>
  (fn.link as { __record: Recorded }[]).map((r) => r.__record.name).sort();
let outputs: Record<string, unknown>;

beforeAll(async () => {
  g.$config = (c: unknown) => c;
  g.sst = namespace("sst");
  g.aws = namespace("aws");
  g.$interpolate = (parts: TemplateStringsArray, ...values: unknown[]) =>
    parts.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ""), "");
  g.$jsonStringify = (value: unknown) => JSON.stringify(value);
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-sst-"));
  const configFile = join(dir, "config.json");
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
  process.env.KNEEBOARD_CONFIG = configFile;
  // A computed path keeps the type checker out of sst.config.ts, whose globals only the sst CLI declares.
  const path = new URL("../../sst.config.ts", import.meta.url).href;
  const config = (await import(/* @vite-ignore */ path)).default as { run(): Promise<Record<string, unknown>> };
  outputs = await config.run();
});

describe("sst.config.ts", () => {
  it("declares every component once", () => {
    expect(components.map((c) => `${c.type} ${c.name}`).sort()).toEqual(
      [
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
    expect(linkNames(publish?.fn as Record<string, unknown>)).toEqual(["Alerts", "Results", "Subscribe", "Table"]);
    expect(publish?.options).toMatchObject({ batch: { window: "1 minute", partialResponses: true } });
    expect(byName("PublishQueue").args.dlq).toMatchObject({ retry: 2 });
    const actions = ((publish?.fn.permissions ?? []) as { actions: string[] }[]).flatMap((p) => p.actions);
    expect(actions.sort()).toEqual(["cloudfront:CreateInvalidation", "s3:PutObject"]);
    // The site build needs its sources and the methodology's markdown beside the bundle.
    expect(((publish?.fn.copyFiles ?? []) as { from: string }[]).map((f) => f.from)).toEqual(
      expect.arrayContaining(["site", "docs"]),
    );
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

  it("opens only data/, runs/ and feeds/ of the results bucket to the public", () => {
    const args = { policy: "" };
    (byName("Results").args.transform as { policy: (a: { policy: string }) => void }).policy(args);
    const statements = JSON.parse(args.policy).Statement as { Action: string; Resource: string }[];
    expect(statements.map((s) => s.Action)).toEqual(["s3:GetObject", "s3:GetObject", "s3:GetObject"]);
    expect(statements.map((s) => s.Resource.split("/").slice(1).join("/"))).toEqual(["data/*", "runs/*", "feeds/*"]);
  });

  it("outputs the site URL and the data URL", () => {
    expect(Object.keys(outputs).sort()).toEqual(["data", "site", "subscribe"]);
    expect(String(outputs.data)).toMatch(/\/data\/$/);
  });
});
