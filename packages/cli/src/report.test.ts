/** @module The progress line and the closing table: closed-loop levels by N, open-loop levels by their rate with what the run sustains. */
import { syntheticRun } from "@kneeboard/core/synthetic";
import { describe, expect, it } from "vitest";
import { progressPrinter, runTable } from "./report.ts";

const run = () =>
  syntheticRun({
    targetId: "t",
    startedAt: "2026-12-05T00:00:00Z",
    concurrency: [1, 2, 3],
    singleStreamTokensPerSecond: 100,
    ttftMs: 50,
    saturationStreams: 8,
  });

describe("runTable", () => {
  it("names a closed loop's levels by N and its headline by single stream and peak", () => {
    const table = runTable(run());
    expect(table).toMatch(/^ +N=1 /m);
    expect(table).toContain("single-stream");
  });

  it("names an open loop's levels by their rate and says what it sustains at the SLO", () => {
    const doc = run();
    doc.levels.forEach((l, i) => {
      l.load = { kind: "open", arrival: "poisson", ratePerSecond: [2, 4, 8][i] as number };
    });
    doc.summary.capacityRequestsPerSecond = 4;
    const table = runTable(doc);
    expect(table).toContain("8 req/s");
    expect(table).toContain("sustains 4 req/s at the SLO");
    expect(table).not.toContain("single-stream");
  });

  it("gives an open loop's knee in requests/s, never a level number", () => {
    const doc = run();
    doc.levels.forEach((l, i) => {
      l.load = { kind: "open", arrival: "poisson", ratePerSecond: [2, 4, 8][i] as number };
    });
    Object.assign(doc.summary, { kneeConcurrency: null, kneeRequestsPerSecond: 4, saturated: true });
    expect(runTable(doc)).toContain("knee 4 req/s,");
    Object.assign(doc.summary, { kneeRequestsPerSecond: null, saturated: false });
    expect(runTable(doc)).toContain("knee not reached,");
  });

  it("names a trace replay's levels by speedup and sets the reuse its trace allows beside the cached share reported", () => {
    const doc = run();
    doc.levels.forEach((l, i) => {
      l.load = { kind: "trace", speedup: [1, 2, 4][i] as number };
      l.cachedPromptTokenShare = [0.12, 0.1, 0.05][i] as number;
    });
    doc.trace = {
      name: "conversation.jsonl",
      format: "mooncake",
      sha256: "0".repeat(64),
      start: 0,
      limit: 600,
      requests: 600,
      durationSeconds: 180,
      skipped: 0,
      blockSize: 512,
      inputTokens: 1000,
      outputTokens: 100,
      reusablePromptTokenShare: 0.17,
    };
    const table = runTable(doc);
    expect(table).toMatch(/^ *trace x4 /m);
    expect(table).toContain("trace replay of conversation.jsonl (600 requests): peak");
    expect(table).toContain(
      "the trace allows 17.0 % of prompt tokens from a cache, the route reported 12.0 % cached at trace x1, 10.0 % cached at trace x2, 5.0 % cached at trace x4",
    );
  });
});

describe("progressPrinter", () => {
  const progress = { targetId: "t", levelIndex: 1, level: 2, levelCount: 3, liveTokensPerSecond: 12.34, threads: 1 };

  it("names the level by its load, in the table's words, and writes a line per finished level off a TTY", () => {
    const lines: string[] = [];
    const print = progressPrinter((t) => lines.push(t), false);
    print({ ...progress, load: { kind: "closed", concurrency: 4 }, done: 3, total: 8, levelDone: false });
    print({ ...progress, load: { kind: "closed", concurrency: 4 }, done: 8, total: 8, levelDone: true });
    print({
      ...progress,
      scenario: "rag",
      load: { kind: "open", arrival: "gamma", ratePerSecond: 2, burstiness: 0.5 },
      done: 5,
      total: null,
      threads: 2,
      levelDone: true,
    });
    print({ ...progress, load: { kind: "trace", speedup: 4 }, done: 9, total: 9, levelDone: true });
    expect(lines).toEqual([
      "t [chat]  level 2/3 (N=4)  requests 8/8  12.3 tok/s\n",
      "t [rag]  level 2/3 (2 req/s, burstiness 0.5, 2 threads)  requests 5  12.3 tok/s\n",
      "t [chat]  level 2/3 (trace x4)  requests 9/9  12.3 tok/s\n",
    ]);
  });

  it("rewrites one line on a TTY", () => {
    const lines: string[] = [];
    const print = progressPrinter((t) => lines.push(t), true);
    print({
      ...progress,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 3 },
      done: 1,
      total: 4,
      levelDone: false,
    });
    expect(lines).toEqual(["\r\x1b[2Kt [chat]  level 2/3 (3 req/s)  requests 1/4  12.3 tok/s"]);
  });
});
