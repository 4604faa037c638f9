/**
 * @module `kneeboard deploy` and `sweep-now` without AWS: the sst commands they run (recorded, the sst
 * CLI cannot run here), and sweep-now's messages on a FIFO queue of fauxqs, as sst shell would link it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { type FauxqsHandle, interceptLocalhostDns, startFauxqs } from "@kneeboard/test-support/fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Exec, sweepNow } from "./aws.ts";
import { main } from "./main.ts";

const dir = mkdtempSync(join(tmpdir(), "kneeboard-aws-cli-"));
const configFile = join(dir, "kneeboard.config.json");
const target = (id: string) => ({
  id,
  label: id,
  baseURL: "https://example.com/v1",
  model: "m",
  route: { gateway: "direct" },
});
writeFileSync(
  configFile,
  JSON.stringify({ targets: [target("a"), target("b")], scenarios: { chat: {}, rag: { promptTokens: 2000 } } }),
);
const sink = () => {
  const chunks: string[] = [];
  return { chunks, out: { write: (c: string) => chunks.push(c) } as unknown as NodeJS.WritableStream };
};

function recording(codes: number[] = []) {
  const runs: { command: string; args: string[]; env: Record<string, string> }[] = [];
  const exec: Exec = async (command, args, env) => {
    runs.push({ command, args, env });
    return codes[runs.length - 1] ?? 0;
  };
  return { runs, exec };
}

describe("kneeboard deploy", () => {
  it("deploys the stage with the config, then starts the first sweep on it under sst shell", async () => {
    const { runs, exec } = recording();
    const io = sink();
    expect(await deploy({ stage: "prod", configFile, io: { out: io.out }, exec })).toBe(0);
    expect(runs.map((r) => [r.command, ...r.args.slice(0, 5)])).toEqual([
      ["npx", "sst", "deploy", "--stage", "prod"],
      ["npx", "sst", "shell", "--stage", "prod", "--"],
    ]);
    expect(runs[0]?.env).toEqual({ KNEEBOARD_CONFIG: configFile });
    expect(runs[1]?.args.slice(-3)).toEqual(["sweep-now", "--config", configFile]);
  });

  it("starts no sweep when the deploy failed, and exits with its code", async () => {
    const { runs, exec } = recording([1]);
    expect(await deploy({ stage: "dev", configFile, io: { out: sink().out }, exec })).toBe(1);
    expect(runs).toHaveLength(1);
  });
});

describe("kneeboard deploy and sweep-now --stage with a config that is missing or invalid", () => {
  const invalid = join(dir, "invalid.json");
  // No level of [4] can be valid at 4 requests: plan refuses it, and so must deploy.
  writeFileSync(
    invalid,
    JSON.stringify({ targets: [target("a")], workload: { concurrency: [4], requestsPerLevel: 4 } }),
  );
  const missing = join(dir, "kneeboard.config.missing.json");

  it.each([
    ["missing", missing],
    ["invalid", invalid],
  ])("%s: a ConfigError naming the file, and nothing of sst runs", async (_, file) => {
    const { runs, exec } = recording();
    await expect(deploy({ stage: "test", configFile: file, io: { out: sink().out }, exec })).rejects.toThrow(file);
    await expect(sweepNow({ stage: "test", configFile: file, io: { out: sink().out }, env: {}, exec })).rejects.toThrow(
      file,
    );
    expect(runs).toEqual([]);
  });

  it("the command exits 2 with the file named on stderr, $KNEEBOARD_CONFIG's when --config is not given", async () => {
    const err: string[] = [];
    const io = { out: sink().out, err: { write: (c: string) => err.push(c) } } as never;
    const saved = process.env.KNEEBOARD_CONFIG;
    process.env.KNEEBOARD_CONFIG = missing;
    try {
      // Had sst been spawned, the command would have waited on it and exited with its code, not 2.
      expect(await main(["deploy", "--stage", "test"], io)).toBe(2);
      expect(err.join("")).toContain(missing);
      expect(await main(["deploy", "--stage", "test", "--config", invalid], io)).toBe(2);
      expect(err.join("")).toContain(`${invalid} is invalid:`);
    } finally {
      if (saved === undefined) delete process.env.KNEEBOARD_CONFIG;
      else process.env.KNEEBOARD_CONFIG = saved;
    }
  });
});

describe("kneeboard sweep-now", () => {
  let fauxqs: FauxqsHandle;
  let sqs: SQSClient;
  let restoreDns: () => void;
  const credentials = { accessKeyId: "x", secretAccessKey: "x" };

  beforeAll(async () => {
    fauxqs = await startFauxqs();
    restoreDns = interceptLocalhostDns();
    sqs = new SQSClient({ endpoint: fauxqs.endpoint, region: "us-east-1", credentials });
  });
  afterAll(async () => {
    sqs?.destroy();
    restoreDns?.();
    await fauxqs?.close();
  });

  it("runs itself under sst shell for a stage when the queue is not linked", async () => {
    const { runs, exec } = recording();
    expect(await sweepNow({ configFile, stage: "prod", io: { out: sink().out }, env: {}, exec })).toBe(0);
    expect(runs[0]?.args.slice(0, 5)).toEqual(["sst", "shell", "--stage", "prod", "--"]);
    await expect(sweepNow({ configFile, io: { out: sink().out }, env: {} })).rejects.toThrow(/--stage NAME/);
  });

  it("queues one sweep per (target, scenario) for this moment's slot on the linked queue", async () => {
    const queueUrl = (
      await sqs.send(new CreateQueueCommand({ QueueName: "sweep-now.fifo", Attributes: { FifoQueue: "true" } }))
    ).QueueUrl as string;
    const io = sink();
    const env = {
      SST_RESOURCE_SweepQueue: JSON.stringify({ url: queueUrl }),
      AWS_ENDPOINT_URL_SQS: fauxqs.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "x",
      AWS_SECRET_ACCESS_KEY: "x",
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const now = Date.UTC(2026, 11, 6, 9, 30);
      expect(await sweepNow({ configFile, io: { out: io.out }, env, now })).toBe(0);
    } finally {
      for (const key of Object.keys(env))
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
    }
    expect(io.chunks.join("")).toContain("queued 4 sweeps for slot 2026-12-06T09:30:00.000Z");
    const bodies: unknown[] = [];
    for (let i = 0; i < 5 && bodies.length < 4; i++) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
      for (const m of out.Messages ?? []) {
        bodies.push(JSON.parse(m.Body as string));
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
      }
    }
    const slot = "2026-12-06T09:30:00.000Z";
    expect(bodies).toEqual(
      expect.arrayContaining([
        { targetId: "a", slot },
        { targetId: "b", slot },
        { targetId: "a", scenario: "rag", slot },
        { targetId: "b", scenario: "rag", slot },
      ]),
    );
    expect(bodies).toHaveLength(4);
  });
});
