/** @module Run documents and index entries stored before the reader's figures still parse, the new figures null. */
import { describe, expect, it } from "vitest";
import { summarizeLevel, summarizeRun } from "../metrics/index.ts";
import { indexEntryFor, RunIndexEntry } from "../run-index/index.ts";
import { RunDocument, type Sample } from "./index.ts";

const sample: Sample = {
  level: 1,
  index: 0,
  turn: null,
  outcome: "ok",
  startMs: 0,
  ttftMs: 100,
  ttftAnswerMs: 100,
  reasoningTokens: null,
  cachedPromptTokens: null,
  costUsd: null,
  e2eMs: 1000,
  completionTokens: 100,
  tokenSource: "usage",
  promptTokens: 50,
  prefillTokensPerSecond: null,
  outputTokensPerSecond: 100,
  decodeTokensPerSecond: 110,
  tpotMs: 9,
  chunks: 3,
  scheduledMs: null,
  reusablePromptTokens: null,
  responseId: "r",
  servedProvider: null,
  httpStatus: 200,
  retryAfterSeconds: null,
  finishReason: "stop",
  error: null,
  connection: "new",
  sends: 1,
  staleSockets: 0,
  staleSocketMs: null,
  connectMs: null,
  tlsMs: null,
};

/** A current document with every field this round added taken out, as a document stored before it. */
function earlierDocument(): Record<string, unknown> {
  const level = summarizeLevel({
    load: { kind: "closed", concurrency: 1 },
    samples: [sample],
    wallTimeMs: 1000,
    achievedConcurrency: 1,
    eventLoopLagP99Ms: 1,
  });
  const doc: RunDocument = {
    schemaVersion: 4,
    runId: "r1",
    targetId: "t",
    scenario: "chat",
    label: "t",
    model: "org/Some-Model",
    modelKey: "some-model",
    pricing: { hourlyUsd: 1 },
    baseURL: "http://127.0.0.1/v1",
    route: { gateway: "direct" },
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:01:00.000Z",
    status: "complete",
    partialReason: null,
    simulated: true,
    harness: { version: "0.1.0", node: "v20", host: "h", region: null },
    workload: { concurrency: [1] },
    trace: null,
    levels: [level],
    summary: summarizeRun([level]),
    samples: [sample],
    toolCalls: null,
  };
  const strip = (o: Record<string, unknown>, keys: string[]) => {
    const copy = { ...o };
    for (const k of keys) delete copy[k];
    return copy;
  };
  return {
    ...strip(doc, ["modelKey", "pricing", "scenario", "trace", "toolCalls"]),
    // Version 3: a level's kind's own figures sat flat on it (none of them recorded yet here).
    schemaVersion: 3,
    levels: doc.levels.map((l) =>
      strip(l, [
        "ttftAnswerMs",
        "cachedPromptTokenShare",
        "cost",
        "meetsSlo",
        "goodputOutputTokensPerSecond",
        "newConnectionShare",
        "staleSockets",
        "requestsSentTwice",
        "invalid",
        "closed",
        "open",
        "trace",
        "conversation",
      ]),
    ),
    summary: strip(doc.summary, ["capacity", "goodputPeak"]),
    samples: doc.samples.map((s) =>
      strip(s, [
        "ttftAnswerMs",
        "turn",
        "reasoningTokens",
        "cachedPromptTokens",
        "costUsd",
        "connection",
        "sends",
        "staleSockets",
        "staleSocketMs",
        "connectMs",
        "tlsMs",
        "scheduledMs",
        "reusablePromptTokens",
      ]),
    ),
  };
}

describe("documents stored before the reader's figures", () => {
  it("parse, with every new figure null (or a cost of nulls)", () => {
    const doc = RunDocument.parse(earlierDocument());
    expect(doc).toMatchObject({
      scenario: "chat",
      modelKey: null,
      pricing: null,
      trace: null,
      toolCalls: null,
      summary: { capacity: null, goodputPeak: null },
    });
    expect(doc.levels[0]).toMatchObject({
      ttftAnswerMs: null,
      cachedPromptTokenShare: null,
      cost: { meteredUsdPerMillionOutputTokens: null, declaredUsdPerMillionOutputTokens: null },
      meetsSlo: null,
      goodputOutputTokensPerSecond: null,
      newConnectionShare: null,
      staleSockets: null,
      requestsSentTwice: null,
      invalid: [],
      closed: { startSpreadMs: null },
      open: null,
      trace: null,
      conversation: null,
    });
    expect(doc.samples[0]).toMatchObject({
      ttftAnswerMs: null,
      turn: null,
      reasoningTokens: null,
      cachedPromptTokens: null,
      costUsd: null,
      connection: null,
      sends: null,
      staleSockets: null,
      staleSocketMs: null,
      connectMs: null,
      tlsMs: null,
      scheduledMs: null,
      reusablePromptTokens: null,
    });
  });

  it("index with the model key from the model and no SLO; earlier index entries parse with nulls", () => {
    const entry = indexEntryFor("runs/t/x.json", RunDocument.parse(earlierDocument()));
    expect(entry).toMatchObject({ scenario: "chat", modelKey: "some-model", slo: null });
    expect(entry.levels[0]).toMatchObject({
      ttftAnswerP50Ms: null,
      meetsSlo: null,
      declaredUsdPerMillionOutputTokens: null,
    });
    const { modelKey: _k, slo: _s, scenario: _c, ...earlier } = entry;
    const levels = entry.levels.map(
      ({
        ttftAnswerP50Ms: _a,
        meetsSlo: _m,
        meteredUsdPerMillionOutputTokens: _c,
        declaredUsdPerMillionOutputTokens: _d,
        ...rest
      }) => rest,
    );
    const parsed = RunIndexEntry.parse({ ...earlier, levels });
    expect(parsed).toMatchObject({ scenario: "chat", modelKey: null, slo: null });
    expect(parsed.levels[0]).toMatchObject({
      ttftAnswerP50Ms: null,
      meetsSlo: null,
      meteredUsdPerMillionOutputTokens: null,
    });
  });
});

describe("open-loop documents stored before the summary read them in offered rate", () => {
  /** Level `n` of an open loop offering `rate` requests/s with `tokens` output tokens over 1 s. */
  const rateLevel = (n: number, rate: number, tokens: number) =>
    summarizeLevel({
      level: n,
      load: { kind: "open", arrival: "poisson", ratePerSecond: rate },
      // The open loop's minimum of requests (20), sharing the level's tokens.
      samples: Array.from({ length: 20 }, (_, index) => ({
        ...sample,
        level: n,
        index,
        completionTokens: tokens / 20,
      })),
      wallTimeMs: 1000,
      achievedConcurrency: 1,
      eventLoopLagP99Ms: 1,
      schedule: {
        achievedRatePerSecond: rate,
        inFlightMean: 1,
        inFlightMax: 1,
        scheduleLagsMs: [0.1],
        maxInFlight: 256,
        maxInFlightHit: false,
      },
    });

  /**
   * Rates 1, 2, 4, 8 whose aggregate stops rising past 2 requests/s, as a version 1 document an older
   * harness wrote: levels numbered in `concurrency` beside their rate, and a summary read by number.
   */
  function storedOpenLoop(): Record<string, unknown> {
    const current = [rateLevel(1, 1, 100), rateLevel(2, 2, 200), rateLevel(3, 4, 210), rateLevel(4, 8, 220)];
    const { kneeRequestsPerSecond: _, ...summary } = summarizeRun(current);
    const levels = current.map(({ level, load, closed: _c, open, trace: _t, conversation: _v, ...rest }) => ({
      ...rest,
      ...open,
      concurrency: level,
      ratePerSecond: load.kind === "open" ? load.ratePerSecond : null,
    }));
    return {
      ...earlierDocument(),
      schemaVersion: 1,
      workload: { arrival: { mode: "poisson", ratesPerSecond: [1, 2, 4, 8] } },
      levels,
      summary: {
        ...summary,
        kneeConcurrency: 2,
        peak: { concurrency: 4, aggregateOutputTokensPerSecond: 220, perStreamOutputTokensPerSecond: 100 },
        goodputPeak: null,
      },
    };
  }

  it("parse without the level-number knee, which is no concurrency", () => {
    const doc = RunDocument.parse(storedOpenLoop());
    expect(doc.summary.kneeConcurrency).toBeNull();
    expect(doc.summary.kneeRequestsPerSecond).toBeUndefined();
  });

  it("index with the knee and peak read again in rate, and each level's rate", () => {
    const entry = indexEntryFor("runs/t/x.json", RunDocument.parse(storedOpenLoop()));
    expect(entry.summary.kneeConcurrency).toBeNull();
    expect(entry.summary.kneeRequestsPerSecond).toBe(2);
    expect(entry.summary.saturated).toBe(true);
    expect(entry.summary.peak).toEqual({
      level: 4,
      load: { kind: "open", arrival: "poisson", ratePerSecond: 8 },
      aggregateOutputTokensPerSecond: 220,
      perStreamOutputTokensPerSecond: 100,
      window: null,
    });
    expect(entry.levels.map((l) => l.load)).toEqual(
      [1, 2, 4, 8].map((ratePerSecond) => ({ kind: "open", arrival: "poisson", ratePerSecond })),
    );
  });

  it("leave a closed loop's index entry without rates", () => {
    const entry = indexEntryFor("runs/t/x.json", RunDocument.parse(earlierDocument()));
    expect(entry.levels[0]?.load).toEqual({ kind: "closed", concurrency: 1 });
    expect(Object.keys(entry.summary)).not.toContain("kneeRequestsPerSecond");
  });
});
