/** @module The plan's arithmetic: rounds per level, bounds, invocation packing, chunk rate. */
import { describe, expect, it } from "vitest";
import { parseConfig, type Target, workloadFor } from "../config/index.ts";
import { MAX_LOOP_UTILIZATION } from "../metrics/index.ts";
import {
  baseUrlWarning,
  CLIENT_CHUNKS_PER_SECOND_PER_THREAD,
  CLIENT_PLANNED_CORE_SHARE,
  conversationPlan,
  costAtScale,
  DEFAULT_PLAN_ASSUMPTIONS,
  DYNAMO_USD_PER_READ_UNIT,
  DYNAMO_USD_PER_WRITE_UNIT,
  expectedTtftSeconds,
  fitInvocations,
  INDEX_ENTRY_KB,
  LAMBDA_MAX_MB,
  LAMBDA_MB_PER_VCPU,
  lambdaCostPerDay,
  planConfig,
  planLevels,
  planTarget,
  SUMMARY_KB,
  slotsPerDay,
  smallCanaryWarning,
  sweepMemoryMb,
  threadsForChunkRate,
} from "./index.ts";

const target = (workload?: Target["workload"]): Target => ({
  id: "t",
  label: "T",
  baseURL: "http://127.0.0.1:1/v1",
  model: "m",
  route: { gateway: "direct" },
  workload,
});

describe("planTarget", () => {
  it("counts closed-loop rounds: the default workload is 132 rounds of one request each", () => {
    const plan = planTarget({}, target());
    expect(plan.levels.map((l) => l.load)).toEqual(
      [1, 2, 4, 8, 16, 32].map((n) => ({ kind: "closed", concurrency: n })),
    );
    expect(plan.totalRequests).toBe(6 * 64);
    expect(plan.totalWarmupRequests).toBe(6);
    // 64 + 32 + 16 + 8 + 4 + 2 measured rounds and one warm-up round per level.
    expect(plan.upperBoundSeconds).toBe(132 * 120);
    // 0.5 s TTFT + 128 tokens at 50 tok/s per request: the README's 404 s sweep.
    expect(plan.expectedSeconds).toBeCloseTo(132 * 3.06, 6);
    expect(plan.expected).toEqual({ invocations: 1, continuations: 0, oversizedLevels: [] });
    expect(plan.upperBound.invocations).toBeGreaterThan(1);
    expect(plan.topLevelChunksPerSecond).toBe(32 * 50);
    expect(plan.clientCoreShare).toBeCloseTo(1600 / CLIENT_CHUNKS_PER_SECOND_PER_THREAD, 9);
    expect(plan.topLevelThreads).toBe(1);
  });

  it("takes a search's top doubling step as its top level, not its last planned level (the bisections, planned at from)", () => {
    const plan = planTarget(
      {},
      target({ concurrency: { search: { from: 1, to: 32, resolution: 0.1, maxRequests: 100_000 } } }),
    );
    // The doubling ladder 1 to 32, then the bisections' levels at `from`, each at its cap (a budget
    // that does not end them).
    expect(plan.levels.map((l) => l.load).slice(0, 6)).toEqual(
      [1, 2, 4, 8, 16, 32].map((n) => ({ kind: "closed", concurrency: n })),
    );
    expect(plan.levels.at(-1)?.load).toEqual({ kind: "closed", concurrency: 1 });
    expect(plan.topLevelLoad).toEqual({ kind: "closed", concurrency: 32 });
    expect(plan.topLevelChunksPerSecond).toBe(32 * 50);
    // At the default budget (the ladder's 6 x 65 requests) the planned levels stop where it is spent,
    // and the top level is still `to`'s: a search may reach it within the budget.
    const budgeted = planTarget({}, target({ concurrency: { search: { from: 1, to: 32, resolution: 0.1 } } }));
    expect(budgeted.search?.requests).toBe(6 * 65);
    expect(budgeted.levels.reduce((sum, l) => sum + (l.requests ?? 0) + l.warmupRequests, 0)).toBe(6 * 65);
    expect(budgeted.topLevelLoad).toEqual({ kind: "closed", concurrency: 32 });
  });

  it("plans a thread with room under the busy loop the health check flags", () => {
    expect(CLIENT_PLANNED_CORE_SHARE).toBeLessThan(MAX_LOOP_UTILIZATION);
  });

  it("runs a level on as many threads as its chunk rate needs cores, capped by the cores and by N", () => {
    const c = CLIENT_CHUNKS_PER_SECOND_PER_THREAD;
    expect(threadsForChunkRate(0, 4, 8)).toBe(1);
    expect(threadsForChunkRate(c, 4, 8)).toBe(1);
    expect(threadsForChunkRate(c + 1, 4, 8)).toBe(2);
    expect(threadsForChunkRate(10 * c, 4, 8)).toBe(4);
    expect(threadsForChunkRate(10 * c, 4, 3)).toBe(3);
    // 512 streams at 1,000 chunks/s each, on 2 cores and on 64.
    const fast = { ...DEFAULT_PLAN_ASSUMPTIONS, outputTokensPerSecondPerStream: 1000, ttftSeconds: 0.1 };
    const plan = (cores: number) =>
      planTarget({ workload: { concurrency: [1, 512] } }, target(), fast, cores).topLevelThreads;
    expect(plan(2)).toBe(2);
    expect(plan(64)).toBe(Math.ceil(512_000 / c));
  });

  it("takes a target's expected per-stream rate over the default, for durations and the chunk rate", () => {
    const plan = planTarget(
      { workload: { concurrency: [1, 64] } },
      { ...target(), expectedOutputTokensPerSecond: 1000 },
    );
    expect(plan.outputTokensPerSecondPerStream).toBe(1000);
    expect(plan.topLevelChunksPerSecond).toBe(64_000);
    // 0.5 s TTFT + 128 tokens at 1000 tok/s, per round.
    expect(plan.levels[1]?.expectedSeconds).toBeCloseTo((1 + 1) * 0.628, 6);
  });

  it("sizes the sweep Lambda a full vCPU per core the busiest top level needs, at least one, at most Lambda's largest", () => {
    const c = CLIENT_CHUNKS_PER_SECOND_PER_THREAD;
    expect(sweepMemoryMb([])).toBe(LAMBDA_MB_PER_VCPU);
    expect(sweepMemoryMb([{ clientCoreShare: 1600 / c }])).toBe(LAMBDA_MB_PER_VCPU);
    expect(sweepMemoryMb([{ clientCoreShare: 0.5 }, { clientCoreShare: 2.1 }])).toBe(3 * LAMBDA_MB_PER_VCPU);
    expect(sweepMemoryMb([{ clientCoreShare: 40 }])).toBe(LAMBDA_MAX_MB);
  });

  it("bounds a fixed-duration level by its duration plus one request, and never counts requests", () => {
    const plan = planTarget(
      { workload: { concurrency: [4], warmupRequests: 8, requestTimeoutSeconds: 10 } },
      target({ levelDurationSeconds: 60 }),
    );
    const [level] = plan.levels;
    expect(level?.requests).toBeNull();
    // Warm-up: 8 requests at 4 at once, 2 rounds; then 60 s and the last request in flight.
    expect(level?.upperBoundSeconds).toBe(2 * 10 + 60 + 10);
    expect(plan.totalRequests).toBeNull();
  });

  it("caps the expected request time at the timeout", () => {
    const plan = planTarget({ workload: { concurrency: [1], warmupRequests: 0, requestTimeoutSeconds: 1 } }, target());
    expect(plan.expectedSeconds).toBe(plan.upperBoundSeconds);
  });
});

describe("the canary's plan", () => {
  it("counts its requests and tokens, prices them at list prices, and is null when off", () => {
    const priced = {
      ...target({ canary: { samplesPerPrompt: 5, concurrency: 10 } }),
      pricing: { inputPerMillionUsd: 1, outputPerMillionUsd: 2 },
    };
    const canary = planTarget({}, priced).canary;
    expect(canary).toMatchObject({ requests: 50, outputTokens: 50 * 32 });
    // 10 prompts of 29 to 53 characters: 8 to 14 tokens at 4 characters a token, plus 8 for a template.
    expect(canary?.promptTokens).toBeGreaterThan(5 * 10 * 16);
    expect(canary?.promptTokens).toBeLessThan(5 * 10 * 22);
    expect(canary?.usd).toBeCloseTo(((canary?.promptTokens ?? 0) * 1 + 50 * 32 * 2) / 1e6, 12);
    // 50 requests 10 at once: 5 rounds of one request (0.5 s to the first token, 32 tokens at 50 tok/s).
    expect(canary?.expectedSeconds).toBeCloseTo(5 * (0.5 + 32 / 50), 9);
    expect(canary?.upperBoundSeconds).toBe(5 * 120);
    expect(planTarget({}, { ...priced, pricing: { hourlyUsd: 2 } }).canary?.usd).toBeNull();
    expect(planTarget({ workload: { canary: false } }, target()).canary).toBeNull();
    expect(planTarget({ workload: { canary: false } }, target({ canary: true })).canary?.requests).toBe(100);
  });

  it("is off by default where no verdict can come of it, counting the default canary's requests as saved", () => {
    const route = (id: string, extra: Partial<Target> = {}): Target => ({ ...target(), id, ...extra });
    const alone = planTarget({}, target());
    expect(alone.canary).toBeNull();
    expect(alone.canaryChoice).toMatchObject({ cause: "no-reference", modelKey: "m" });
    expect(alone.canarySavedRequests).toBe(100);
    const lone = route("ref", { reference: true });
    expect(planTarget({ targets: [lone] }, lone)).toMatchObject({
      canary: null,
      canaryChoice: { cause: "alone" },
      canarySavedRequests: 100,
    });
    const targets = [lone, route("other")];
    for (const t of targets)
      expect(planTarget({ targets }, t)).toMatchObject({
        canary: { requests: 100 },
        canaryChoice: { cause: "judged" },
        canarySavedRequests: 0,
      });
    // Set off by the workload: nothing counted as saved by the default.
    expect(planTarget({ workload: { canary: false }, targets }, lone).canarySavedRequests).toBe(0);
  });

  it("warns of a canary under the completions a verdict needs", () => {
    expect(smallCanaryWarning({ samplesPerPrompt: 4 })).toBe(
      "canary of 40 completions is under the 50 a verdict needs: it can only end too-few-samples",
    );
    expect(smallCanaryWarning({ samplesPerPrompt: 5 })).toBeNull();
  });
});

describe("baseUrlWarning", () => {
  it("passes a path ending in /v1 or a documented provider path, and names the target and URL of any other", () => {
    for (const baseURL of [
      "http://127.0.0.1:8000/v1",
      "https://openrouter.ai/api/v1/",
      "https://api.groq.com/openai/v1",
      "https://api.deepinfra.com/v1/openai",
      "https://generativelanguage.googleapis.com/v1beta/openai/",
    ])
      expect(baseUrlWarning({ id: "t", baseURL })).toBeNull();
    for (const baseURL of ["http://127.0.0.1:8000", "https://openrouter.ai/api", "https://example.com/v1/chat"])
      expect(baseUrlWarning({ id: "t", baseURL })).toMatch(
        new RegExp(`^target t: baseURL ${baseURL.replace(/[.]/g, "\\.")} does not end in /v1 `),
      );
  });
});

describe("fitInvocations", () => {
  it("starts a new invocation when the next level does not fit, and names levels that never fit", () => {
    expect(fitInvocations([500, 300, 100], 870)).toEqual({ invocations: 2, continuations: 1, oversizedLevels: [] });
    expect(fitInvocations([870, 870], 870)).toEqual({ invocations: 2, continuations: 1, oversizedLevels: [] });
    expect(fitInvocations([100, 1000], 870).oversizedLevels).toEqual([1]);
  });
});

describe("planConfig with scenarios", () => {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        { id: "a", label: "A", baseURL: "http://127.0.0.1:1/v1", model: "m", route: { gateway: "direct" } },
        {
          id: "b",
          label: "B",
          baseURL: "http://127.0.0.1:1/v1",
          model: "m",
          route: { gateway: "direct" },
          scenarios: ["long-context"],
        },
      ],
      scenarios: {
        chat: {},
        rag: { promptTokens: 4000, maxTokens: 256 },
        "long-context": { promptTokens: 32000, maxTokens: 256, concurrency: [1, 2, 4, 8] },
      },
    }),
    { env: {} },
  );

  it("plans each (target, scenario) with its own workload, chat as without scenarios", () => {
    const plans = planConfig(config);
    expect(plans.map((p) => [p.targetId, p.scenario])).toEqual([
      ["a", "chat"],
      ["a", "rag"],
      ["a", "long-context"],
      ["b", "long-context"],
    ]);
    const [chat, rag, long] = plans;
    expect(chat?.expectedSeconds).toBeCloseTo(planTarget({}, target()).expectedSeconds, 9);
    expect(rag?.workload).toMatchObject({ promptTokens: 4000, maxTokens: 256 });
    expect(long?.levels.map((l) => l.load)).toEqual([1, 2, 4, 8].map((n) => ({ kind: "closed", concurrency: n })));
  });

  it("makes a long prompt's sweep longer: TTFT grows with the prompt past what the base TTFT covers", () => {
    expect(expectedTtftSeconds(150)).toBe(0.5);
    expect(expectedTtftSeconds(4000)).toBeCloseTo(0.5 + 3000 / 2000, 9);
    const at = (promptTokens: number) =>
      planTarget({ workload: { promptTokens, requestTimeoutSeconds: 900 } }, target()).expectedSeconds;
    expect(at(4000)).toBeGreaterThan(at(150));
    expect(at(32000)).toBeGreaterThan(at(4000));
    // 132 rounds of 15.5 s + 0.5 s TTFT and 2.56 s of output each.
    expect(at(32000)).toBeCloseTo(132 * (0.5 + 31000 / 2000 + 2.56), 6);
    // Past the timeout the request is cut: the upper bound is every request at its timeout.
    const capped = planTarget({ workload: { promptTokens: 1_000_000, requestTimeoutSeconds: 60 } }, target());
    expect(capped.expectedSeconds).toBe(capped.upperBoundSeconds);
  });
});

describe("lambdaCostPerDay", () => {
  // n routes of one model, the first its reference: each runs the default canary.
  const targets = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      label: `t${i}`,
      baseURL: "https://example.com/v1",
      model: "m",
      route: { gateway: "direct" },
      ...(i === 0 ? { reference: true } : {}),
    }));

  it("counts a rate's slots a day; a cron is not counted", () => {
    expect([slotsPerDay("rate(6 hours)"), slotsPerDay("rate(30 minutes)"), slotsPerDay("rate(1 day)")]).toEqual([
      4, 48, 1,
    ]);
    expect(slotsPerDay("cron(0 6 * * ? *)")).toBeNull();
  });

  it("prices 10 default routes of a model with a reference at rate(6 hours): sweeps (their canaries included) at one vCPU, a publish, the plan", () => {
    const config = parseConfig(JSON.stringify({ targets: targets(10) }), { file: "c.json", requireKeys: false });
    const plans = planConfig(config);
    const cost = lambdaCostPerDay(plans, config.schedule, 10);
    // Each sweep's canary (100 requests, 4 at once: 25 rounds of 0.5 s + 32 tokens at 50 tok/s) runs in it.
    expect(plans.every((p) => p.canary?.expectedSeconds === 25 * (0.5 + 32 / 50))).toBe(true);
    const sweepGbSeconds =
      4 * plans.reduce((s, p) => s + p.expectedSeconds + (p.canary?.expectedSeconds ?? 0), 0) * (1769 / 1024);
    const publishGbSeconds = 4 * (10 + 0.015 * 10) * 2;
    expect(cost?.sweepMemoryMb).toBe(1769);
    expect(cost?.gbSecondsPerDay).toBeCloseTo(sweepGbSeconds + publishGbSeconds, 6);
    expect(cost?.invocationsPerDay).toBe(4 * (1 + 10 + 1));
    expect(cost?.usdPerDay.toFixed(2)).toBe("0.50");
    expect(lambdaCostPerDay(plans, "cron(0 6 * * ? *)", 10)).toBeNull();
  });

  it("prices 100 and 1,000 routes by service: Lambda as 100 routes of its own, the index's reads growing with routes times history", () => {
    const config = parseConfig(JSON.stringify({ targets: targets(10) }), { file: "c.json", requireKeys: false });
    const plans = planConfig(config);
    const [hundred, thousand] = [100, 1000].map((n) => costAtScale(plans, config.schedule, n));
    // 100 routes like 10 are each of the 10 ten times: Lambda's figure for them.
    const tenfold = Array.from({ length: 10 }, () => plans).flat();
    expect(hundred?.lambda).toBeCloseTo(lambdaCostPerDay(tenfold, config.schedule, 100)?.usdPerDay as number, 9);
    // 400 runs a day, 40 publishes: each publish reads 30 days of every run's entry (the regression
    // check) and each of the 100 series' summaries (the build); each run writes its entry and its
    // series' summary, read first (consistently) to be merged.
    const reads = 40 * ((400 * 30 * INDEX_ENTRY_KB) / 4) * 0.5 + 400 * 2 + 40 * 100 * (SUMMARY_KB / 4) * 0.5;
    const writes = 400 * (5 + 6);
    expect(hundred?.dynamodb).toBeCloseTo(writes * DYNAMO_USD_PER_WRITE_UNIT + reads * DYNAMO_USD_PER_READ_UNIT, 9);
    // Ten times the routes: ten times the publishes, each reading ten times the index.
    expect((thousand?.dynamodb ?? 0) / (hundred?.dynamodb ?? 1)).toBeGreaterThan(90);
    // 40 publishes a day are 1,200 paths a month: 200 past the free 1,000.
    expect(hundred?.cloudfront).toBeCloseTo((200 / 30) * 0.005, 9);
    // Every measured request at maxTokens (128 by default), 4 slots a day.
    const requests = plans.reduce((sum, p) => sum + (p.totalRequests ?? 0), 0);
    expect(hundred?.outputTokensPerDay).toBe(4 * 10 * requests * 128);
    expect(costAtScale(plans, "cron(0 6 * * ? *)", 100)).toBeNull();
  });
});

describe("planLevels", () => {
  const workloadOf = (workload: Record<string, unknown>) => {
    const config = parseConfig(JSON.stringify({ targets: [target()], workload }));
    return workloadFor(config, config.targets[0] as Target);
  };

  it("expands a closed loop's levels once: each its load, its name, its number and its time", () => {
    const levels = planLevels(workloadOf({ concurrency: [1, 4], requestsPerLevel: 8, warmupRequests: 2 }), 2);
    expect(levels.map((l) => [l.load, l.name, l.level])).toEqual([
      [{ kind: "closed", concurrency: 1 }, "concurrency 1", 1],
      [{ kind: "closed", concurrency: 4 }, "concurrency 4", 2],
    ]);
    // N = 4: 1 warm-up round and 2 measured rounds of 2 s.
    expect(levels[1]?.expectedSeconds).toBe(6);
  });

  it("expands an open loop's rates into levels numbered 1, 2, ... with their arrivals", () => {
    const workload = workloadOf({
      arrival: { mode: "poisson", ratesPerSecond: [2, 5], seed: 9, maxInFlight: 32 },
      requestsPerLevel: 10,
      warmupRequests: 1,
    });
    const levels = planLevels(workload, 2);
    expect(levels.map((l) => [l.load, l.name, l.level])).toEqual([
      [{ kind: "open", arrival: "poisson", ratePerSecond: 2, seed: 9, maxInFlight: 32 }, "rate 2 requests/s", 1],
      [{ kind: "open", arrival: "poisson", ratePerSecond: 5, seed: 9, maxInFlight: 32 }, "rate 5 requests/s", 2],
    ]);
    // (1 warm-up + the last request) x 2 s, and 10 sends at 5/s.
    expect(levels[1]?.expectedSeconds).toBe(6);
  });
});

describe("a conversation's plan", () => {
  const workload = (conversation: Record<string, unknown>) =>
    workloadFor(
      { workload: { concurrency: [1, 2], promptTokens: 40, maxTokens: 16, requestsPerLevel: 8, warmupRequests: 0 } },
      target({ conversation } as Target["workload"]),
    );

  it("gives each turn's prompt tokens (system prompt, history, question) and a conversation's in all", () => {
    const plan = conversationPlan(workload({ turns: 3, sharedPrefixTokens: 100, turnPromptTokens: 50 }));
    expect(plan).toMatchObject({
      turns: 3,
      // 100 + 50; + 16 + 50; + 16 + 50.
      promptTokensByTurn: [150, 216, 282],
      promptTokens: 648,
      outputTokens: 48,
      // 100; 100 + 50; 100 + 2 x 50 + 16: all but the last answer and the new question.
      cacheablePromptTokens: 466,
    });
    expect(conversationPlan(workload({ turns: 1, sharedPrefixTokens: 0 }))?.promptTokensByTurn).toEqual([40]);
  });

  it("adds the think time of every turn but the last to a level's expected time", () => {
    const quick = planLevels(workload({ turns: 4, sharedPrefixTokens: 0, thinkSeconds: 0 }), 1);
    const thinking = planLevels(workload({ turns: 4, sharedPrefixTokens: 0, thinkSeconds: 2 }), 1);
    // 8 requests at N = 1, each 3/4 of 2 s more; at N = 2, 4 rounds.
    expect(thinking.map((l, i) => l.expectedSeconds - (quick[i]?.expectedSeconds ?? 0))).toEqual([12, 6]);
  });
});
