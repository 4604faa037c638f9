/** @module Traces read, windowed and turned into prompts: the fixtures, the reusable count, and bad input named by file, line and field. */
import { mkdtempSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.ts";
import { ConfigError } from "../errors/index.ts";
import {
  deployedTraceFiles,
  loadTrace,
  parseTrace,
  replayPrompt,
  reusableTokens,
  type TraceArrival,
  type TraceRequest,
  traceWindow,
} from "./index.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const CONFIG = join(FIXTURES, "kneeboard.config.json");
const mooncake: TraceArrival = {
  mode: "trace",
  file: "mooncake-40.jsonl",
  format: "mooncake",
  speedup: [1],
  start: 0,
  blockSize: 512,
  maxInFlight: 256,
};
const burstgpt: TraceArrival = { ...mooncake, file: "burstgpt-30.csv", format: "burstgpt" };

/** The ConfigError a call throws. */
function configError(call: () => unknown): ConfigError {
  try {
    call();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("no ConfigError was thrown");
}

const req = (timestampMs: number, inputTokens: number, hashIds: number[] | null): TraceRequest => ({
  timestampMs,
  inputTokens,
  outputTokens: 10,
  hashIds,
});

describe("the fixtures", () => {
  it("read as a Mooncake window: 40 requests, their span, tokens and a reusable share from hash_ids", () => {
    const window = loadTrace(CONFIG, mooncake);
    expect(window).toMatchObject({ name: "mooncake-40.jsonl", format: "mooncake", skipped: 0, limit: null });
    expect(window.requests).toHaveLength(40);
    expect(window.offsetsMs[0]).toBe(0);
    expect(window.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(window.reusablePromptTokenShare).toBeGreaterThan(0.2);
    expect(window.reusablePromptTokenShare).toBeLessThan(0.8);
  });

  it("read as a BurstGPT window: seconds to ms, the 4 rows with 0 response tokens skipped and counted", () => {
    const window = loadTrace(CONFIG, burstgpt);
    expect(window.requests).toHaveLength(26);
    expect(window.skipped).toBe(4);
    expect(window.requests[0]).toEqual({ timestampMs: 5050, inputTokens: 704, outputTokens: 35, hashIds: null });
    expect(window.reusablePromptTokenShare).toBe(0);
  });

  it("cut to a window by start and limit, its offsets from its own first request", () => {
    const all = loadTrace(CONFIG, mooncake);
    const first = all.requests.find((r) => r.timestampMs >= 1000) as TraceRequest;
    const window = loadTrace(CONFIG, { ...mooncake, start: 1, limit: 5 });
    expect(window.requests).toHaveLength(5);
    expect(window.requests[0]).toEqual(first);
    expect(window.durationSeconds).toBeCloseTo(((window.requests[4]?.timestampMs ?? 0) - first.timestampMs) / 1000, 9);
  });
});

describe("reusableTokens", () => {
  it("counts leading blocks whose whole prefix an earlier request sent, the last block cut at the input length", () => {
    expect(
      reusableTokens(
        [
          req(0, 1000, [1, 2]), // nothing before it
          req(1, 1200, [1, 2, 3]), // blocks 1 and 2: 512 + 488 (the first sent only 488 of block 2)
          req(2, 700, [1, 9]), // block 1: 512; block 9 never sent
          req(3, 300, [1]), // 300 of block 1
          req(4, 1536, [2, 3]), // block 2 first: a prefix never sent
          req(5, 600, null), // no hash_ids
        ],
        512,
      ),
    ).toEqual([0, 1000, 512, 300, 0, 0]);
  });
});

describe("bad input", () => {
  it("names the file, the line and the field of every Mooncake line that does not parse or lacks a field", () => {
    const text = [
      '{"timestamp": 0, "input_length": 10, "output_length": 5}',
      '{"timestamp": 10, "output_length": 5}',
      "not json",
      '{"timestamp": 20, "input_length": 10, "output_length": 0, "hash_ids": ["x"]}',
    ].join("\n");
    const error = configError(() => parseTrace(text, "mooncake", "t.jsonl"));
    expect(error.file).toBe("t.jsonl");
    expect(error.problems.map((p) => p.path)).toEqual([
      "line 2, field input_length",
      "line 3, field (line)",
      "line 4, field output_length",
      "line 4, field hash_ids",
    ]);
    expect(error.message).toContain("t.jsonl is invalid");
    expect(error.problems[0]?.message).toContain("missing");
  });

  it("names a BurstGPT column the header lacks, and a row's bad field by its line", () => {
    expect(
      configError(() => parseTrace("Timestamp,Model,Request tokens\n1,m,3\n", "burstgpt", "b.csv")).problems,
    ).toEqual([
      { path: "line 1, field Response tokens", message: expect.stringContaining('no column "Response tokens"') },
    ]);
    const rows = "Timestamp,Request tokens,Response tokens\n1,3,4\n2,,4\nsoon,3,4\n";
    expect(configError(() => parseTrace(rows, "burstgpt", "b.csv")).problems.map((p) => p.path)).toEqual([
      "line 3, field Request tokens",
      "line 4, field Timestamp",
    ]);
  });

  it("refuses an empty window", () => {
    const parsed = parseTrace('{"timestamp": 0, "input_length": 10, "output_length": 5}\n', "mooncake", "t.jsonl");
    const error = configError(() =>
      traceWindow(parsed, { format: "mooncake", start: 60, blockSize: 512 }, { path: "t.jsonl", sha256: "", bytes: 1 }),
    );
    expect(error.problems[0]?.message).toContain("the window holds no request");
  });

  it("refuses a trace over 50 MB with a sentence saying why, and a missing file", () => {
    const dir = mkdtempSync(join(tmpdir(), "kneeboard-trace-"));
    const big = join(dir, "big.jsonl");
    writeFileSync(big, "");
    truncateSync(big, 51 * 1024 * 1024);
    const error = configError(() => loadTrace(join(dir, "c.json"), { ...mooncake, file: "big.jsonl" }));
    expect(error.problems[0]?.message).toMatch(/51\.0 MB, over the 50 MB .* travels with the config/);
    expect(
      configError(() => loadTrace(join(dir, "c.json"), { ...mooncake, file: "none.jsonl" })).problems[0]?.message,
    ).toContain("ENOENT");
  });
});

describe("replayPrompt", () => {
  const place = { runId: "r1", level: 1, blockSize: 64, charsPerToken: 4 };
  const blockChars = 64 * 4;

  it("is exactly the shared blocks first, so requests with the same leading ids share exactly that prefix", () => {
    const a = replayPrompt(req(0, 200, [1, 2, 3, 4]), 0, place);
    const b = replayPrompt(req(1, 160, [1, 2, 7]), 1, place);
    expect(a).toHaveLength(800);
    expect(b).toHaveLength(640);
    expect(a.slice(0, 2 * blockChars)).toBe(b.slice(0, 2 * blockChars));
    expect(a.slice(2 * blockChars, 3 * blockChars)).not.toBe(b.slice(2 * blockChars, 3 * blockChars));
    // Nothing before the blocks: the prompt opens with block 1's text.
    expect(a.startsWith("block 1 at level 1 of run r1:")).toBe(true);
  });

  it("gives unique text to a request without hash_ids, and other text to another level or run", () => {
    const x = replayPrompt(req(0, 100, null), 0, place);
    const y = replayPrompt(req(0, 100, null), 1, place);
    expect(x.slice(0, 8)).not.toBe(y.slice(0, 8));
    const other = replayPrompt(req(0, 100, [1]), 0, { ...place, level: 2 });
    expect(other.slice(0, blockChars)).not.toBe(replayPrompt(req(0, 100, [1]), 0, place).slice(0, blockChars));
  });
});

describe("deployedTraceFiles", () => {
  const configOf = (file: string) =>
    parseConfig(
      JSON.stringify({
        targets: [{ id: "t", label: "t", baseURL: "https://example.com/v1", model: "m", route: { gateway: "direct" } }],
        workload: { arrival: { mode: "trace", file, format: "mooncake" } },
      }),
    );

  it("copies each trace to its path relative to the config, where the sweep function resolves it", () => {
    expect(deployedTraceFiles(configOf("mooncake-40.jsonl"), CONFIG)).toEqual([
      { from: join(FIXTURES, "mooncake-40.jsonl"), to: "mooncake-40.jsonl" },
    ]);
  });

  it("refuses a trace outside the config's folder, saying why", () => {
    const error = configError(() => deployedTraceFiles(configOf("../elsewhere.jsonl"), CONFIG));
    expect(error.problems[0]?.message).toContain(
      "is outside the config's folder: deployed, a trace travels beside the config",
    );
  });
});
