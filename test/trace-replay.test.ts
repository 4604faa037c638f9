/**
 * @module Trace replay and gamma arrivals against the reference server with a block-level prefix
 * cache, which records what it received: requests sharing leading `hash_ids` share exactly that
 * prompt prefix at the server, each level sends the window's requests with their `max_tokens` and
 * prompt sizes, the reusable count is the trace's, the cache serves about it, and the server sees the
 * schedule (counts and ratios, no wall-clock thresholds). Bad traces stop `kneeboard run` (exit 2)
 * before anything is sent.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { main } from "@kneeboard/cli/main";
import { type Config, parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument, Sample } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { loadTraces, reusableTokens, type TraceWindow, traceKey } from "@kneeboard/core/trace";
import { type ReferenceServer, type ResponseTiming, seededRandom, startReferenceServer } from "@kneeboard/reference";
import { clientFlagProblems } from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * When the level's requests went out, by its own account, for the server's arrivals to be held to:
 * the schedule (each sample's `scheduledMs`), or, where a loaded machine made the client send late and
 * the level says so (`client_schedule_lag`, which its figures must bear out), the client's own record
 * of each send (`startMs`). Either way the server's log is compared with a record of the sends.
 */
function sendTimes(level: RunDocument["levels"][number] | undefined, samples: Sample[]): number[] {
  if (!level?.invalid.some((r) => r.code === "client_schedule_lag")) return samples.map((s) => s.scheduledMs ?? 0);
  expect(clientFlagProblems(level)).toEqual([]);
  return samples.map((s) => s.startMs);
}

/** The span of the server's arrivals over the span of the sends they are held to. */
function spanRatio(arrived: number[], sent: number[]): number {
  return ((arrived.at(-1) as number) - (arrived[0] as number)) / ((sent.at(-1) as number) - (sent[0] as number));
}

const FIXTURES = join(import.meta.dirname, "..", "packages", "core", "src", "trace", "fixtures");
/** The server's cache blocks: 16 tokens, as vLLM's; the trace's blocks are 512 (Mooncake's). */
const CACHE_BLOCK_TOKENS = 16;

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({
    recordPrompts: true,
    models: [
      {
        kind: "model",
        id: "m",
        profile: {
          stepBaseMs: 2,
          stepPerSeqMs: 0,
          slots: 256,
          prefillBaseMs: 1,
          prefillPerTokenMs: 0,
          prefixCache: { blockTokens: CACHE_BLOCK_TOKENS },
        },
      },
    ],
  });
});
afterAll(() => server.close());

/** A config replaying `arrival` against the server, written beside the fixtures' folder's path. */
function configOf(arrival: Record<string, unknown>, extra: Record<string, unknown>): { config: Config; file: string } {
  const file = join(FIXTURES, "kneeboard.config.json");
  const text = JSON.stringify({
    targets: [{ id: "ref", label: "ref", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
    workload: { maxTokens: 8, warmupRequests: 1, arrival, ...extra },
  });
  return { config: parseConfig(text, { file }), file };
}

/** Sweeps the config's one target; returns its document, the window, and the server's record of each measured sample. */
async function replay(arrival: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { config, file } = configOf(arrival, extra);
  const traces = loadTraces(config, file);
  const target = config.targets[0] as Config["targets"][number];
  const workload = workloadFor(config, target);
  server.takeTimings();
  const doc = await runSweep({ target, workload, traces, simulated: true });
  const byId = new Map(server.takeTimings().map((t) => [t.responseId, t]));
  const window = workload.arrival.mode === "trace" ? (traces.get(traceKey(workload.arrival)) as TraceWindow) : null;
  const seen = (s: Sample) => byId.get(s.responseId ?? "") as ResponseTiming;
  return { doc, window, seen };
}

const levelSamples = (doc: RunDocument, level: number) =>
  doc.samples.filter((s) => s.level === level).sort((a, b) => a.index - b.index);

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** Pearson correlation of two equal-length series. */
function correlation(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const y = ys[i] as number;
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/**
 * How closely the server's arrival gaps must follow a record of the sends (Pearson's r over the gaps).
 * A true record reads near 1 on a quiet machine. The server stamps arrivals on the client's own event
 * loop, so a loaded machine adds noise about the size of the gaps: r read 0.71 beside two busy loops and
 * the timed group, and 0.62 under a heavier load. A record that does not match the sends (even gaps, bursts, the right gaps
 * in the wrong places) reads near 0, about +-0.16 over 39 gaps.
 */
const FOLLOWS = 0.5;

/** The values in a seeded random order. */
function shuffled(values: number[], seed: number): number[] {
  const random = seededRandom(seed);
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as number, out[i] as number];
  }
  return out;
}

describe("a Mooncake trace replayed at speedups 1 and 2", () => {
  let result: Awaited<ReturnType<typeof replay>>;
  beforeAll(async () => {
    result = await replay({ mode: "trace", file: "mooncake-40.jsonl", format: "mooncake", speedup: [1, 2] });
  }, 120_000);

  it("sends the window's 40 requests at each speedup, each level's load its speedup, and records the trace", () => {
    const { doc, window } = result;
    expect(doc.levels.map((l) => [l.load, l.requests.sent])).toEqual([
      [{ kind: "trace", speedup: 1 }, 40],
      [{ kind: "trace", speedup: 2 }, 40],
    ]);
    expect(doc.trace).toMatchObject({
      name: "mooncake-40.jsonl",
      format: "mooncake",
      requests: 40,
      start: 0,
      limit: null,
    });
    expect(doc.trace?.sha256).toBe(window?.sha256);
    // The summary reads along the speedups: a peak there, no knee in users or rate, no capacity.
    expect(doc.summary.peak?.load.kind ?? "trace").toBe("trace");
    expect([doc.summary.kneeConcurrency, doc.summary.capacity, doc.summary.capacityRequestsPerSecond]).toEqual([
      null,
      null,
      null,
    ]);
    expect(doc.summary).not.toHaveProperty("kneeRequestsPerSecond");
  });

  it("sends each request with max_tokens its output length and a prompt within 15 % of its input length", () => {
    const { doc, window, seen } = result;
    for (const level of [1, 2])
      for (const s of levelSamples(doc, level)) {
        const recorded = window?.requests[s.index];
        expect(seen(s).maxTokens).toBe(recorded?.outputTokens);
        expect(Math.abs(seen(s).promptTokens / (recorded?.inputTokens ?? 1) - 1)).toBeLessThan(0.15);
      }
  });

  it("records reusablePromptTokens exactly as hash_ids count them, and the cache serves within 15 % of them", () => {
    const { doc, window, seen } = result;
    const expected = reusableTokens(window?.requests ?? [], 512);
    for (const level of [1, 2]) {
      const samples = levelSamples(doc, level);
      expect(samples.map((s) => s.reusablePromptTokens)).toEqual(expected);
      const reusable = expected.reduce((a, b) => a + b, 0);
      const cached = samples.reduce((sum, s) => sum + (seen(s).cachedTokens ?? 0), 0);
      expect(reusable).toBeGreaterThan(0);
      expect(Math.abs(cached / reusable - 1)).toBeLessThan(0.15);
      // The level reports both shares, side by side.
      const l = doc.levels[level - 1];
      expect(l?.trace?.reusablePromptTokenShare).toBeGreaterThan(0);
      expect(Math.abs((l?.cachedPromptTokenShare ?? 0) / (l?.trace?.reusablePromptTokenShare ?? 1) - 1)).toBeLessThan(
        0.15,
      );
      expect(l?.invalid.map((r) => r.code)).not.toContain("cached_prompt");
    }
  });

  it("shares exactly the leading hash_ids blocks between two prompts at the server, nothing more", () => {
    const { doc, window, seen } = result;
    const samples = levelSamples(doc, 1);
    let pairs = 0;
    for (const a of samples)
      for (const b of samples) {
        if (a.index >= b.index) continue;
        const ra = window?.requests[a.index];
        const rb = window?.requests[b.index];
        const pa = seen(a).prompt ?? "";
        const pb = seen(b).prompt ?? "";
        let k = 0;
        while (ra?.hashIds?.[k] !== undefined && ra.hashIds[k] === rb?.hashIds?.[k]) k++;
        // Characters of one 512-token block as this prompt was sized.
        const blockChars = (512 * pa.length) / Math.max(1, ra?.inputTokens ?? 1);
        const shared = commonPrefix(pa, pb);
        const expected = Math.min(k * blockChars, pa.length, pb.length);
        // Exactly the shared blocks: at most a rounding character short, and past them only the few
        // characters two different blocks' texts may happen to open with.
        expect(shared).toBeGreaterThanOrEqual(Math.floor(expected) - 2);
        expect(shared).toBeLessThan(expected + 24);
        if (k > 0) pairs++;
      }
    expect(pairs).toBeGreaterThan(20);
  });

  it("gives every sample its scheduledMs, and the server sees the trace's gaps in order", () => {
    const { doc, window, seen } = result;
    for (const [level, speedup] of [
      [1, 1],
      [2, 2],
    ] as const) {
      const samples = levelSamples(doc, level);
      expect(samples.map((s) => s.scheduledMs)).toEqual(
        (window?.offsetsMs ?? []).map((ms) => expect.closeTo(ms / speedup, 6)),
      );
      const arrived = samples.map((s) => seen(s).arrivedAtMs);
      const sent = sendTimes(
        doc.levels.find((l) => l.level === level),
        samples,
      );
      const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));
      // The span the server saw over the span sent (the schedule's, unless the level says it lagged).
      const span = spanRatio(arrived, sent);
      expect(span).toBeGreaterThan(0.9);
      expect(span).toBeLessThan(1.1);
      // Gap by gap, the server's log follows the client's own record of its sends: a lag too small to
      // flag still moves single gaps on a loaded machine, so they are not held to the schedule.
      const served = gaps(arrived);
      const recorded = gaps(samples.map((s) => s.startMs));
      expect(correlation(served, recorded)).toBeGreaterThan(FOLLOWS);
      // The same gaps in another order, the record of a client that sent them elsewhere, fall below it
      // (seed 3's order reads r = 0.003 against the trace's own gaps).
      expect(correlation(served, shuffled(recorded, 3))).toBeLessThan(FOLLOWS);
    }
  });
});

describe("a BurstGPT trace replayed", () => {
  it("sends its 26 answered rows (the 4 with 0 response tokens skipped), with their lengths, on their gaps", async () => {
    const { doc, window, seen } = await replay({ mode: "trace", file: "burstgpt-30.csv", format: "burstgpt" });
    expect(doc.trace).toMatchObject({ format: "burstgpt", requests: 26, skipped: 4 });
    const samples = levelSamples(doc, 1);
    expect(samples).toHaveLength(26);
    for (const s of samples) {
      expect(seen(s).maxTokens).toBe(window?.requests[s.index]?.outputTokens);
      expect(Math.abs(seen(s).promptTokens / (window?.requests[s.index]?.inputTokens ?? 1) - 1)).toBeLessThan(0.15);
      expect(s.reusablePromptTokens).toBe(0);
    }
    const arrived = samples.map((s) => seen(s).arrivedAtMs);
    const span = spanRatio(arrived, sendTimes(doc.levels[0], samples));
    expect(span).toBeGreaterThan(0.9);
    expect(span).toBeLessThan(1.1);
  }, 60_000);
});

describe("gamma arrivals at 20 requests/s, burstiness 0.25, 300 sends", () => {
  it("give every sample its scheduledMs (a gap CV of 1.6 to 2.5), and the server's gaps that CV within 10 %", async () => {
    const { doc, seen } = await replay(
      { mode: "gamma", ratesPerSecond: [20], burstiness: 0.25, seed: 1 },
      { requestsPerLevel: 300 },
    );
    expect(doc.levels[0]?.load).toEqual({ kind: "open", arrival: "gamma", ratePerSecond: 20, burstiness: 0.25 });
    const samples = levelSamples(doc, 1);
    expect(samples).toHaveLength(300);
    expect(samples.every((s) => typeof s.scheduledMs === "number")).toBe(true);
    // The gap CV of the schedule the sender was given (seed 1: 1.71 over these 299 gaps; the
    // generator's own is tested on 100,000 draws), and of the arrivals the server saw.
    const cv = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      const gaps = sorted.slice(1).map((t, i) => t - (sorted[i] as number));
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      return Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (gaps.length - 1)) / mean;
    };
    const scheduled = cv(samples.map((s) => s.scheduledMs ?? 0));
    const arrived = samples.map((s) => seen(s).arrivedAtMs);
    const served = cv(arrived);
    expect(scheduled).toBeGreaterThan(1.6);
    expect(scheduled).toBeLessThan(2.5);
    // The server's gaps as bursty as the sends: the schedule's, unless the level says the client lagged.
    expect(Math.abs(served / cv(sendTimes(doc.levels[0], samples)) - 1)).toBeLessThan(0.1);
  }, 120_000);
});

describe("bad traces", () => {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-bad-trace-"));
  const quiet = () =>
    new Writable({
      write(_chunk, _encoding, done) {
        done();
      },
    });

  it("stop kneeboard run with exit 2 naming the file, line and field, before anything is sent", async () => {
    writeFileSync(
      join(dir, "bad.jsonl"),
      '{"timestamp": 0, "input_length": 10, "output_length": 5}\n{"timestamp": 5, "input_length": 10}\n',
    );
    const file = join(dir, "c.json");
    writeFileSync(
      file,
      JSON.stringify({
        targets: [{ id: "ref", label: "ref", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
        workload: { arrival: { mode: "trace", file: "bad.jsonl", format: "mooncake" } },
      }),
    );
    let err = "";
    const errors = new Writable({
      write(chunk, _encoding, done) {
        err += String(chunk);
        done();
      },
    });
    const before = server.counts().requests;
    const code = await main(["run", "--config", file, "--data", join(dir, "data")], {
      out: quiet(),
      err: errors,
    } as never);
    expect(code).toBe(2);
    expect(err).toContain(join(dir, "bad.jsonl"));
    expect(err).toContain("line 2, field output_length");
    expect(server.counts().requests).toBe(before);
  });

  it("stop kneeboard plan on an empty window", async () => {
    writeFileSync(join(dir, "one.jsonl"), '{"timestamp": 0, "input_length": 10, "output_length": 5}\n');
    const file = join(dir, "p.json");
    writeFileSync(
      file,
      JSON.stringify({
        targets: [{ id: "ref", label: "ref", baseURL: server.url, model: "m", route: { gateway: "direct" } }],
        workload: { arrival: { mode: "trace", file: "one.jsonl", format: "mooncake", start: 60 } },
      }),
    );
    let err = "";
    const errors = new Writable({
      write(chunk, _encoding, done) {
        err += String(chunk);
        done();
      },
    });
    expect(await main(["plan", "--config", file], { out: quiet(), err: errors } as never)).toBe(2);
    expect(err).toContain("the window holds no request");
  });
});

describe("kneeboard plan of a trace replay", () => {
  it("shows the window's requests, its duration at each speedup, its tokens and reusable share", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-plan-trace-"));
    const file = join(dir, "c.json");
    writeFileSync(
      file,
      JSON.stringify({
        targets: [
          { id: "ref", label: "ref", baseURL: "https://example.com/v1", model: "m", route: { gateway: "direct" } },
        ],
        workload: {
          arrival: { mode: "trace", file: join(FIXTURES, "mooncake-40.jsonl"), format: "mooncake", speedup: [1, 4] },
        },
      }),
    );
    let out = "";
    const output = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        done();
      },
    });
    expect(await main(["plan", "--config", file], { out: output, err: output } as never)).toBe(0);
    const { config } = configOf({ mode: "trace", file: "mooncake-40.jsonl", format: "mooncake" }, {});
    const window = [...loadTraces(config, join(FIXTURES, "kneeboard.config.json")).values()][0] as TraceWindow;
    expect(out).toContain(`window from 0 s: 40 requests over ${window.durationSeconds.toFixed(1)} s`);
    expect(out).toContain(`x1 ${window.durationSeconds.toFixed(1)} s, x4 ${(window.durationSeconds / 4).toFixed(1)} s`);
    expect(out).toContain(`${window.inputTokens.toLocaleString("en-US")} prompt`);
    expect(out).toContain(
      `allow ${(window.reusablePromptTokenShare * 100).toFixed(1)} % of prompt tokens from a cache`,
    );
    expect(out).toMatch(/ x1 +1 +40 /);
    expect(out).toMatch(/ x4 +1 +40 /);
  });
});
