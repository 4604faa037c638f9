/**
 * @module The newer reference targets swept over real HTTP: answer TTFT of the reasoning model, the metered
 * gateway whose cached prompts make its levels invalid, and capacity, goodput and declared cost of the
 * priced routes, each against what its parameters say it should measure.
 */

import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { RunDocument, SloRecord } from "@kneeboard/core/run";
import type { Scheduler } from "@kneeboard/core/scheduler";
import { runSweep } from "@kneeboard/core/sweep";
import {
  type ExpectedReaderFigures,
  expectedReaderFigures,
  GATEWAY_GAMMA,
  LARGE_DEDICATED,
  REASONING,
  REFERENCE_PRICING,
  REFERENCE_SLO,
  referenceModels,
  referenceTargets,
  SMALL_PRICED,
  type StreamProfile,
} from "@kneeboard/reference";
import { type ReferenceProcess, startReferenceProcess } from "@kneeboard/reference/process";
import {
  accuracyProblems,
  clientError,
  epochClock,
  reasonsBesidesClient,
  recordedSloVerdict,
} from "@kneeboard/test-support/accuracy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: ReferenceProcess;
beforeAll(async () => {
  server = await startReferenceProcess(referenceModels());
});
afterAll(() => server.close());

/** Sweeps the named reference target with this workload instead of its demo one. */
async function sweep(id: string, workload: Record<string, unknown>, clock?: Scheduler): Promise<RunDocument> {
  const target = referenceTargets(server.url).find((t) => t.id === id);
  const { workload: _demo, ...rest } = target as typeof target & { workload?: unknown };
  const config = parseConfig(JSON.stringify({ targets: [rest], workload }));
  const parsed = config.targets[0] as (typeof config.targets)[number];
  return runSweep({ target: parsed, workload: workloadFor(config, parsed), simulated: true, scheduler: clock });
}

/** Sweeps on the server's clock and returns the run with the server's record of it, for the client's error. */
async function sweepWithRecord(id: string, workload: Record<string, unknown>) {
  await server.takeTimings();
  const clock = epochClock();
  const doc = await sweep(id, workload, clock);
  return { doc, timings: await server.takeTimings(), originMs: clock.originMs as number };
}

/** What the sweep should find, at the prompt size the server counted. */
function expected(
  doc: RunDocument,
  profile: StreamProfile,
  slo = REFERENCE_SLO,
  pricing = doc.pricing,
): ExpectedReaderFigures {
  const w = doc.workload as { concurrency: number[]; maxTokens: number };
  const promptTokens = doc.samples[0]?.promptTokens ?? 0;
  return expectedReaderFigures(profile, { ...w, promptTokens }, slo, pricing);
}

/**
 * Each level's SLO verdict as the server's record gives it (`recordedSloVerdict`), null where the
 * record sits within the client's tolerance of a bound or the level flagged its own client.
 */
function recordedVerdicts(
  doc: RunDocument,
  timings: Awaited<ReturnType<ReferenceProcess["takeTimings"]>>,
  originMs: number,
  slo = (doc.workload as { slo: SloRecord }).slo,
): (boolean | null)[] {
  return doc.levels.map((level) =>
    level.client.limited
      ? null
      : recordedSloVerdict(
          doc.samples.filter((s) => s.level === level.level),
          timings,
          originMs,
          slo,
        ),
  );
}

/**
 * Where the server kept to its profile (each level's recorded SLO verdict that of the profile's
 * truth) and every level is valid, the run's capacity is the truth's. A loaded machine that slowed the
 * server moves the truth, not the client's measure of it: then the per-level verdicts are the check.
 */
function expectCapacityWhereTheServerKeptItsProfile(
  doc: RunDocument,
  verdicts: (boolean | null)[],
  truth: ExpectedReaderFigures,
): boolean {
  doc.levels.forEach((level, i) => {
    if (verdicts[i] !== null)
      expect(level.meetsSlo, `level ${level.level} against the server's record`).toBe(verdicts[i]);
  });
  const kept = verdicts.every((v, i) => v === truth.levels[i]?.meetsSlo);
  if (!kept || !doc.levels.every((l) => l.valid)) return false;
  expect(doc.summary.capacity).toBe(truth.capacity);
  return true;
}

const rel = (measured: number | null | undefined, truth: number) => Math.abs((measured ?? 0) - truth) / truth;

const events = async (res: Response) =>
  (await res.text())
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map((e) => JSON.parse(e.slice(6)));
const post = (body: Record<string, unknown>) =>
  fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "x".repeat(400) }], ...body }),
  });

describe("reference server fields for readers", () => {
  it("streams reasoning deltas, then the answer, and reports the reasoning tokens, leaving one token to answer", async () => {
    for (const [maxTokens, reasoning] of [
      [30, 24],
      [10, 9],
    ] as const) {
      const chunks = await events(
        await post({
          model: "ref-reasoning",
          stream: true,
          stream_options: { include_usage: true },
          max_tokens: maxTokens,
        }),
      );
      const kinds = chunks.flatMap((c) => Object.keys(c.choices[0]?.delta ?? {}));
      expect(kinds).toEqual([
        ...Array(reasoning).fill("reasoning_content"),
        ...Array(maxTokens - reasoning).fill("content"),
      ]);
      expect(chunks.at(-1).usage).toEqual({
        prompt_tokens: 100,
        completion_tokens: maxTokens,
        total_tokens: 100 + maxTokens,
        completion_tokens_details: { reasoning_tokens: reasoning },
      });
    }
  });

  it("meters cost and reports cached prompt tokens on the gamma provider only, streamed or not", async () => {
    const body = { model: "ref-gateway", max_tokens: 4, provider: { order: ["gamma"], allow_fallbacks: false } };
    const streamed = await events(await post({ ...body, stream: true, stream_options: { include_usage: true } }));
    const plain = await (await post(body)).json();
    // 100 prompt tokens at 0.2 USD and 4 output tokens at 0.6 USD per million; 60 of 100 cached.
    for (const usage of [streamed.at(-1).usage, plain.usage]) {
      expect(usage.cost).toBeCloseTo((100 * 0.2 + 4 * 0.6) / 1e6, 15);
      expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 60 });
    }
    expect(streamed[0].provider).toBe("gamma");
    const alpha = await (await post({ ...body, provider: { order: ["alpha"], allow_fallbacks: false } })).json();
    expect(Object.keys(alpha.usage).sort()).toEqual(["completion_tokens", "prompt_tokens", "total_tokens"]);
  });
});

describe("reference targets for readers", () => {
  it("reasoning model: TTFT at the first reasoning token within 10 ms + 3 % of the server's record (or flagged for a reason its figures bear out), answer TTFT after the reasoning", async () => {
    const { doc, timings, originMs } = await sweepWithRecord("ref-reasoning", {
      concurrency: [1, 4],
      promptTokens: 150,
      maxTokens: 64,
      requestsPerLevel: 12,
      warmupRequests: 1,
      ignoreEos: true,
    });
    const truth = expected(doc, REASONING);
    expect(doc.samples.every((s) => s.outcome === "ok" && s.reasoningTokens === 24)).toBe(true);
    for (const level of doc.levels) {
      const own = doc.samples.filter((s) => s.level === level.level);
      // Real time is the point here; what the server did is the truth, however loaded the machine.
      const error = clientError(own, timings, originMs);
      expect(error.matched).toBe(12);
      expect(accuracyProblems(level, error)).toEqual([]);
      // The answer follows 24 reasoning tokens in the same stream.
      expect(own.every((s) => (s.ttftAnswerMs as number) >= (s.ttftMs as number))).toBe(true);
      expect(level.ttftAnswerMs?.p50).toBeGreaterThan(level.ttftMs.p50 as number);
      expect(reasonsBesidesClient(level)).toEqual([]);
    }
    expect(doc.modelKey).toBe("ref-reasoning");
    expectCapacityWhereTheServerKeptItsProfile(doc, recordedVerdicts(doc, timings, originMs), truth);
  });

  it("metered gateway: cost as metered, cached prompts over half make every level invalid, so no capacity", async () => {
    const doc = await sweep("ref-gateway-gamma", {
      concurrency: [1, 2],
      promptTokens: 150,
      maxTokens: 16,
      requestsPerLevel: 4,
      warmupRequests: 0,
    });
    const truth = expected(doc, GATEWAY_GAMMA);
    expect(
      doc.samples.every(
        (s) =>
          s.outcome === "ok" &&
          s.costUsd !== null &&
          s.cachedPromptTokens === Math.floor((s.promptTokens ?? 0) * (GATEWAY_GAMMA.cachedPromptShare ?? 0)),
      ),
    ).toBe(true);
    for (const [i, level] of doc.levels.entries()) {
      const t = truth.levels[i] as (typeof truth.levels)[number];
      expect(level.valid).toBe(false);
      // Whatever else a loaded machine adds (a limited client), the cache is named.
      expect(level.invalid).toContainEqual({
        code: "cached_prompt",
        detail: { share: expect.closeTo(0.595, 2), limitShare: 0.5 },
      });
      // Rounded down per request, over prompts of slightly different sizes.
      const own = doc.samples.filter((x) => x.level === level.level);
      const prompt = own.reduce((sum, x) => sum + (x.promptTokens ?? 0), 0);
      expect(level.cachedPromptTokenShare).toBeCloseTo(
        own.reduce((sum, x) => sum + Math.floor((x.promptTokens ?? 0) * 0.6), 0) / prompt,
        12,
      );
      expect(rel(level.cachedPromptTokenShare, t.cachedPromptTokenShare as number)).toBeLessThan(0.01);
      expect(
        rel(level.cost.meteredUsdPerMillionOutputTokens, t.meteredUsdPerMillionOutputTokens as number),
      ).toBeLessThan(0.03);
      expect(
        rel(level.cost.declaredUsdPerMillionOutputTokens, t.declaredUsdPerMillionOutputTokens as number),
      ).toBeLessThan(0.03);
    }
    expect(doc.pricing).toEqual(REFERENCE_PRICING.gatewayGamma);
    expect(doc.modelKey).toBe("ref-gateway");
    expect(doc.summary).toMatchObject({ capacity: null, goodputPeak: null });
  });

  it("list-priced API: declared cost from the list prices, capacity at the SLO", async () => {
    const { doc, timings, originMs } = await sweepWithRecord("ref-small-priced", {
      concurrency: [1, 8],
      promptTokens: 150,
      maxTokens: 32,
      // More than N: at N or fewer every worker sends one request, and the level is invalid (too_few_requests).
      requestsPerLevel: 16,
      warmupRequests: 1,
      ignoreEos: true,
    });
    const truth = expected(doc, SMALL_PRICED);
    for (const [i, level] of doc.levels.entries()) {
      const t = truth.levels[i] as (typeof truth.levels)[number];
      expect(
        rel(level.cost.declaredUsdPerMillionOutputTokens, t.declaredUsdPerMillionOutputTokens as number),
      ).toBeLessThan(0.03);
      expect(level.cost.meteredUsdPerMillionOutputTokens).toBeNull();
    }
    expect(doc.modelKey).toBe("ref-small");
    // A loaded machine may flag the client; nothing else makes a level invalid.
    expect(doc.levels.map(reasonsBesidesClient)).toEqual([[], []]);
    expect(truth.capacity).toBe(8);
    expectCapacityWhereTheServerKeptItsProfile(doc, recordedVerdicts(doc, timings, originMs), truth);
  });

  it("dedicated endpoint: capacity at the SLO, goodput as the SLO-meeting share, the hourly price per output token", async () => {
    // A stricter SLO than the demo's, so the level within the slots at 16 streams misses it.
    const slo = { minOutputTokensPerSecond: 210, maxTtftMs: 250 };
    const { doc, timings, originMs } = await sweepWithRecord("ref-large-dedicated", {
      concurrency: [4, 16],
      promptTokens: 150,
      maxTokens: 64,
      requestsPerLevel: 48,
      warmupRequests: 1,
      ignoreEos: true,
      slo,
    });
    const truth = expected(doc, LARGE_DEDICATED, slo);
    expect(truth.capacity).toBe(4);
    // Per-stream p50 is 13 % above the SLO at 4 streams (238 tok/s) and 12 % under it at 16 (186) by
    // the profile; a loaded machine may slow the server past that margin, so the verdicts are held to
    // the server's record, and capacity and goodput peak to the profile where the server kept to it.
    const verdicts = recordedVerdicts(doc, timings, originMs, slo);
    for (const level of doc.levels) {
      expect(reasonsBesidesClient(level)).toEqual([]);
      const ok = doc.samples.filter((x) => x.level === level.level && x.outcome === "ok");
      // Real time is the point here; what the server did is the truth, however loaded the machine.
      const error = clientError(ok, timings, originMs);
      expect(accuracyProblems(level, error)).toEqual([]);
      const aggregate = level.aggregateOutputTokensPerSecond as number;
      // The hourly price over what the level delivered.
      expect(level.cost.declaredUsdPerMillionOutputTokens).toBeCloseTo((1.2 / (aggregate * 3600)) * 1e6, 9);
      // Goodput: the level's output from requests that each met the SLO, over the same wall time.
      const met = ok.filter(
        (x) =>
          (x.outputTokensPerSecond ?? 0) >= slo.minOutputTokensPerSecond && (x.ttftMs ?? Infinity) <= slo.maxTtftMs,
      );
      const tokens = (xs: typeof ok) => xs.reduce((sum, x) => sum + (x.completionTokens ?? 0), 0);
      expect(level.goodputOutputTokensPerSecond).toBeCloseTo((aggregate * tokens(met)) / tokens(ok), 6);
    }
    if (expectCapacityWhereTheServerKeptItsProfile(doc, verdicts, truth)) {
      expect(doc.summary.goodputPeak).toEqual({
        level: 1,
        load: { kind: "closed", concurrency: 4 },
        goodputOutputTokensPerSecond: doc.levels[0]?.goodputOutputTokensPerSecond,
      });
    }
    expect(doc.workload.slo).toEqual(slo);
    expect(doc.pricing).toEqual({ hourlyUsd: 1.2 });
  });
});
