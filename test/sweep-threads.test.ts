/** @module A level run on two worker threads against the reference target over real HTTP: still one exact closed loop. */

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import { loadPosition } from "@kneeboard/core/run";
import { runSweep, type SweepProgress } from "@kneeboard/core/sweep";
import { lambdaEsbuild } from "@kneeboard/functions/bundle";
import { type StreamProfile, startReferenceServer } from "@kneeboard/reference";
import { type ReferenceProcess, startReferenceProcess } from "@kneeboard/reference/process";
import { accuracyProblems, clientError, clientFlagProblems, statusProblems } from "@kneeboard/test-support/accuracy";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FAST: StreamProfile = {
  stepBaseMs: 4,
  stepPerSeqMs: 0.25,
  slots: 16,
  prefillBaseMs: 10,
  prefillPerTokenMs: 0.02,
};
let server: ReferenceProcess;

beforeAll(async () => {
  server = await startReferenceProcess([{ kind: "model", id: "fast", profile: FAST }]);
});
afterAll(() => server.close());

function setup(workload: Record<string, unknown>) {
  const config = parseConfig(
    JSON.stringify({
      targets: [{ id: "fast", label: "fast", baseURL: server.url, model: "fast", route: { gateway: "direct" } }],
      workload,
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  return { target, workload: workloadFor(config, target) };
}

describe("a level on two worker threads", () => {
  it("keeps exactly N in flight at the server, sends every index once and merges the samples into one level", async () => {
    await server.reset("fast");
    const seen: SweepProgress[] = [];
    const doc = await runSweep({
      ...setup({ concurrency: [8], maxTokens: 64, requestsPerLevel: 64, warmupRequests: 1 }),
      threads: 2,
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.threads === 2)).toBe(true);
    const stats = await server.stats("fast");
    const log = stats.log;
    // The same bounds as the single-thread test: never more than N, N through the body.
    expect(stats.maxInFlight).toBe(8);
    const firstFull = log.find((e) => e.inFlight === 8)?.tMs as number;
    const lastSend = log.filter((e, i) => i > 0 && e.inFlight > (log[i - 1]?.inFlight ?? 0)).at(-1)?.tMs as number;
    expect(stats.meanBetween(firstFull, lastSend)).toBeGreaterThan(0.95 * 8);
    expect(statusProblems(doc, "complete")).toEqual([]);
    expect(doc.levels).toHaveLength(1);
    expect(doc.samples.map((s) => s.index)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(doc.samples.every((s) => s.level === 1 && s.outcome === "ok")).toBe(true);
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.requests.ok).toBe(64);
    // At most N; under 90 % of it only as the level's own client_concurrency flag says.
    expect(level.achievedConcurrency).toBeLessThanOrEqual(8);
    expect(clientFlagProblems(level)).toEqual([]);
    expect(level.client.threads).toBe(2);
    // One clock: every sample starts after the run's origin and the level's samples overlap in time.
    expect(Math.min(...doc.samples.map((s) => s.startMs))).toBeGreaterThanOrEqual(0);
  });

  it("measures TTFT within 10 ms + 3 percent and per-stream tok/s within 3 percent of the server's record (or flags its client for a reason its figures bear out) at concurrency 16", async () => {
    await server.takeTimings();
    const doc = await runSweep({
      ...setup({
        concurrency: [16],
        promptTokens: 150,
        maxTokens: 128,
        requestsPerLevel: 96,
        warmupRequests: 1,
        ignoreEos: true,
      }),
      threads: 2,
      simulated: true,
    });
    const level = doc.levels[0] as (typeof doc.levels)[number];
    // A loaded machine may flag the client, and a run whose one level is flagged fails: that alone.
    expect(statusProblems(doc, "complete")).toEqual([]);
    expect(level.requests.ok).toBe(96);
    expect(level.client.threads).toBe(2);
    // Threads need the system clock, whose origin is the run's start: startedAt, to the ms (the middle of it).
    const originMs = Date.parse(doc.startedAt) + 0.5;
    // Real time is the point here; what the server did is the truth, however loaded the machine.
    const error = clientError(doc.samples, await server.takeTimings(), originMs);
    expect(error.matched).toBe(96);
    expect(accuracyProblems(level, error)).toEqual([]);
  });

  it("ends partial with the finished levels kept when stopped during a threaded level", async () => {
    const stop = new AbortController();
    const doc = await runSweep({
      ...setup({ concurrency: [1, 4], maxTokens: 8, requestsPerLevel: 16, warmupRequests: 0 }),
      threads: 2,
      onProgress: (p) => {
        if (loadPosition(p.load) === 4 && p.done === 3) stop.abort();
      },
      signal: stop.signal,
    });
    expect(doc.status).toBe("partial");
    expect(doc.partialReason).toMatch(/concurrency 4/);
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1]);
  });

  it("waits after 429s in the threads and sends nothing twice: every prompt reaches the server once", async () => {
    const quick: StreamProfile = {
      stepBaseMs: 1,
      stepPerSeqMs: 0.05,
      slots: 32,
      prefillBaseMs: 2,
      prefillPerTokenMs: 0,
    };
    const limited = await startReferenceServer({
      recordPrompts: true,
      models: [
        { kind: "model", id: "third", profile: { ...quick, refuse: { status: 429, every: 3, retryAfterSeconds: 1 } } },
      ],
    });
    try {
      const config = parseConfig(
        JSON.stringify({
          targets: [
            { id: "third", label: "third", baseURL: limited.url, model: "third", route: { gateway: "direct" } },
          ],
          workload: { concurrency: [4], requestsPerLevel: 12, warmupRequests: 0, maxTokens: 8 },
        }),
      );
      const target = config.targets[0] as (typeof config.targets)[number];
      const doc = await runSweep({ target, workload: workloadFor(config, target), threads: 2, runId: "thread01" });
      const level = doc.levels[0] as (typeof doc.levels)[number];
      // Arrivals 1 to 12: every third refused, and a refused worker waits retry-after (1 s) before its
      // next send unless no index is left: the last refusal never waits, and the one before it waits
      // unless the other thread took the last indexes meanwhile. So 2 or 3 waits of 1 s. Real time
      // (the exact figures are in sweep/level.test.ts on a manual scheduler), with a margin of 1 s for
      // a loaded machine; a timer fires at most 1 ms early.
      expect(level.requests).toMatchObject({ sent: 12, ok: 8, rateLimited: 4 });
      expect(level.rateLimitWaitMs).toBeGreaterThanOrEqual(2 * 1000 - 5);
      expect(level.rateLimitWaitMs).toBeLessThan(4 * 1000);
      expect(doc.samples.map((s) => s.index)).toEqual(Array.from({ length: 12 }, (_, i) => i));
      const seen = [...limited.prompts.entries()].filter(([p]) => p.includes("of run thread01:")).map(([, n]) => n);
      expect(seen.length).toBe(12);
      expect(seen.every((n) => n === 1)).toBe(true);
    } finally {
      await limited.close();
    }
  });

  it("ends a level at once when its first 4 requests fail, across threads", async () => {
    const dead = await startReferenceServer({ models: [{ kind: "model", id: "fast", profile: FAST }] });
    const url = dead.url;
    await dead.close();
    const config = parseConfig(
      JSON.stringify({
        targets: [{ id: "dead", label: "dead", baseURL: url, model: "fast", route: { gateway: "direct" } }],
        workload: { concurrency: [8, 16], requestsPerLevel: 64, warmupRequests: 0, maxTokens: 8 },
      }),
    );
    const target = config.targets[0] as (typeof config.targets)[number];
    const doc = await runSweep({ target, workload: workloadFor(config, target), threads: 2 });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([8]);
    const level = doc.levels[0] as (typeof doc.levels)[number];
    expect(level.requests.ok).toBe(0);
    expect(level.invalid).toContainEqual({ code: "ended_early", detail: { firstRequests: 4 } });
    expect(doc.summary.stop?.reason).toBe("unreachable");
  });

  it("runs threads from a one-file bundle built as the Lambda's is (the bundle is its own thread module)", async () => {
    await server.reset("fast");
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-bundle-"));
    try {
      // Like a handler module: exports only, no top-level effect (a thread loading the bundle runs its top level).
      const entry = `
        import { parseConfig, workloadFor } from "@kneeboard/core/config";
        import { runSweep } from "@kneeboard/core/sweep";
        export async function sweepLevels(text) {
          const config = parseConfig(text);
          const target = config.targets[0];
          return (await runSweep({ target, workload: workloadFor(config, target), threads: 2 })).levels;
        }`;
      await build({
        ...lambdaEsbuild,
        stdin: { contents: entry, resolveDir: new URL("../", import.meta.url).pathname, loader: "ts" },
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        outfile: join(dir, "sweep.mjs"),
        logLevel: "silent",
      });
      const config = JSON.stringify({
        targets: [{ id: "fast", label: "fast", baseURL: server.url, model: "fast", route: { gateway: "direct" } }],
        workload: { concurrency: [8], maxTokens: 32, requestsPerLevel: 32, warmupRequests: 1 },
      });
      // The caller is a file of its own: a thread inherits node's flags, and `--input-type` (for `-e`) fails in one.
      writeFileSync(
        join(dir, "call.mjs"),
        `import { sweepLevels } from "./sweep.mjs"; process.stdout.write(JSON.stringify(await sweepLevels(process.argv[2])));`,
      );
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, "call.mjs"), config]);
      const [level] = JSON.parse(stdout) as { client: { threads: number }; requests: { ok: number } }[];
      expect(level?.client.threads).toBe(2);
      expect(level?.requests.ok).toBe(32);
      expect((await server.stats("fast")).maxInFlight).toBe(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
