/**
 * @module A searched sweep end to end on an in-memory endpoint in a manual scheduler's time: the
 * issue's route of known capacity in closed form (16 sequences at once, more queue; one stream at
 * 1000 / (20 + 4 x N) tok/s; 32 tokens an answer), so decisions, levels and counts are exact.
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest, RawResult } from "../client/index.ts";
import { parseConfig, workloadFor } from "../config/index.ts";
import { kneeIndex } from "../metrics/index.ts";
import { planTarget } from "../plan/index.ts";
import { loadPosition, type RunDocument } from "../run/index.ts";
import { ManualScheduler } from "../scheduler/manual.ts";
import { runSweep } from "./index.ts";
import { inProcessThreads } from "./threads.ts";

const TOKENS = 32;

/** The route: a request's step is set by the requests in flight when it starts (a closed loop holds N). */
function kneeEndpoint(scheduler: ManualScheduler, failEvery: number | ((prompt: string) => boolean) = 0) {
  let inFlight = 0;
  let sent = 0;
  let failed = 0;
  return {
    get sent() {
      return sent;
    },
    get failed() {
      return failed;
    },
    async send(request: ChatRequest): Promise<RawResult> {
      const startMs = scheduler.now();
      sent++;
      inFlight++;
      const running = Math.min(inFlight, 16);
      const stepMs = 20 + 4 * running;
      // Past 16 a request waits in the queue for its share of the slots.
      const queueMs = inFlight > 16 ? ((inFlight - 16) / 16) * stepMs * TOKENS : 0;
      const fails =
        typeof failEvery === "function" ? failEvery(request.prompt) : failEvery > 0 && sent % failEvery === 0;
      await scheduler.sleep(queueMs + stepMs * (fails ? TOKENS / 2 : TOKENS), request.signal);
      inFlight--;
      if (fails) failed++;
      const ok = !fails && !request.signal?.aborted;
      const chunks = Array.from({ length: ok ? TOKENS : TOKENS / 2 }, (_, i) => ({
        tMs: startMs + queueMs + stepMs * (i + 1),
        chars: 4,
      }));
      return {
        outcome: ok ? "ok" : "incomplete",
        startMs,
        contentChunks: chunks,
        firstAnswerMs: chunks[0]?.tMs ?? null,
        completionTokens: ok ? TOKENS : null,
        // As a tokenizer counts it (4 characters a token): a fixed count would have the sweep's prompt
        // sizer grow every prompt to match it.
        promptTokens: ok ? Math.ceil(request.prompt.length / 4) : null,
        reasoningTokens: null,
        cachedPromptTokens: null,
        costUsd: null,
        finishReason: ok ? "length" : null,
        responseId: "knee",
        servedProvider: null,
        httpStatus: 200,
        retryAfterSeconds: null,
        error: ok ? null : "the stream ended before its end",
        connection: "reused",
        sends: 1,
        staleSockets: 0,
        staleSocketMs: null,
        connectMs: null,
        tlsMs: null,
      };
    },
  };
}

const calm = () => ({
  firstTokenRead: () => {},
  stop: () => ({
    eventLoopLagP99Ms: 0,
    eventLoopLagMeanMs: 0,
    loopUtilization: 0,
    cpuShare: 0,
    firstTokenReadDelayMs: 0,
  }),
});

function setup(
  concurrency: unknown,
  failEvery: Parameters<typeof kneeEndpoint>[1] = 0,
  slo: object = { minOutputTokensPerSecond: 24 },
  more: Record<string, unknown> = {},
) {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        { id: "knee", label: "knee", baseURL: "http://127.0.0.1:9/v1", model: "knee", route: { gateway: "direct" } },
      ],
      workload: {
        concurrency,
        requestsPerLevel: 64,
        warmupRequests: 1,
        maxTokens: TOKENS,
        slo,
        canary: false,
        ...more,
      },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const scheduler = new ManualScheduler();
  const endpoint = kneeEndpoint(scheduler, failEvery);
  const run = (more: Partial<Parameters<typeof runSweep>[0]> = {}) =>
    scheduler.run(
      runSweep({
        target,
        workload: workloadFor(config, target),
        scheduler,
        client: endpoint,
        watchHealth: calm,
        ...more,
      }),
    );
  // Client threads in this process on the same scheduler and endpoint (`inProcessThreads`): a level on 2 in exact numbers.
  const threads = (n: number) => ({
    threads: n,
    threadHost: inProcessThreads({ scheduler, client: endpoint, watchHealth: calm }),
  });
  return { config, target, endpoint, run, threads };
}

describe("a searched sweep", () => {
  it("finds capacity 5 where the ladder 1, 2, 4, 8 says 4, counting what it spent", async () => {
    const ladder = setup([1, 2, 4, 8]);
    expect((await ladder.run()).summary.capacity).toBe(4);

    const searched = setup({ search: { from: 1, to: 8, resolution: 0.1 } });
    const doc = await searched.run();
    const search = doc.summary.search;
    expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    expect(doc.summary.capacity).toBe(5);
    // Levels sorted by load and numbered so; the order they ran in `probe.order`: the doubling first.
    const loads = doc.levels.map((l) => loadPosition(l.load));
    expect(loads).toEqual([1, 2, 4, 5, 6, 8]);
    expect(doc.levels.map((l) => l.level)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(doc.levels.map((l) => l.probe?.order)).toEqual([1, 2, 3, 6, 5, 4]);
    expect(doc.levels.map((l) => l.probe?.decision)).toEqual(["meets", "meets", "meets", "meets", "misses", "misses"]);
    // Every sample's level is a level of the document.
    for (const l of doc.levels) expect(doc.samples.filter((x) => x.level === l.level)).toHaveLength(l.requests.sent);
    // What it spent is what the endpoint received (warm-ups included); the baseline is the doubling ladder 1, 2, 4, 8.
    expect(search?.requests).toBe(searched.endpoint.sent);
    expect(search?.ladderRequests).toBe(4 * 65);
    expect(search?.outputTokens).toBe(doc.samples.filter((x) => x.outcome === "ok").length * TOKENS);
  }, 300_000);

  it("from above 1: measures one user alone first, an ordinary level outside the search's decisions", async () => {
    // A budget over the ladder 4, 8's 130: under the TTFT limit, 5 must draw its ramp and 63 to meet.
    const searched = setup({ search: { from: 4, to: 8, resolution: 0.1, maxRequests: 1000 } });
    const doc = await searched.run();
    const single = doc.levels[0];
    expect(single?.load).toEqual({ kind: "closed", concurrency: 1 });
    // No probe: the search neither ran nor read it; its own first probe is `from`, order 2 of the run.
    expect(single?.probe).toBeNull();
    expect(single?.requests.sent).toBe(64);
    const probed = doc.levels.filter((l) => l.probe !== null);
    expect(Math.min(...probed.map((l) => l.probe?.order as number))).toBe(2);
    expect(Math.min(...probed.map((l) => loadPosition(l.load)))).toBe(4);
    // Both numbers: the single-stream figure (N = 1: 1000 / 24 tok/s a stream) and the search's capacity.
    expect(doc.summary.singleStream?.outputTokensPerSecond).toBeCloseTo(1000 / 24, 6);
    expect(doc.summary.search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    expect(doc.summary.capacityBracket).toEqual({ kind: "searched", lo: 5, hi: 6, confidence: 0.95 });
    // Everything sent is counted in the search's spend.
    expect(doc.summary.search?.requests).toBe(searched.endpoint.sent);
  }, 300_000);

  it("brackets the knee along its probed levels to the resolution (today's 15 % rule), below an SLO already missed at from", async () => {
    const doc = await setup({ search: { from: 8, to: 64, resolution: 0.1 } }).run();
    const search = doc.summary.search;
    const knee = search?.knee;
    expect(knee?.status).toBe("found");
    expect(knee?.hi).toBe(knee?.value);
    expect((knee?.hi as number) - (knee?.lo as number)).toBe(1);
    // The knee is today's definition read along the probed levels' steady aggregates.
    const curve = doc.levels.filter((l) => l.valid);
    const k = kneeIndex(curve.map((l) => l.steadyAggregateOutputTokensPerSecond as number)) as number;
    expect(loadPosition((curve[k] as (typeof curve)[number]).load)).toBe(knee?.value);
    expect(doc.summary.kneeConcurrency).toBe(knee?.value);
    // The knee lies between the slots' start of queueing (16) and the lowest level (8).
    expect(knee?.value as number).toBeGreaterThan(8);
    expect(knee?.value as number).toBeLessThanOrEqual(16);
    // 8 already misses the SLO: the capacity lies below `from`, and the search says so.
    expect(search?.capacity.status).toBe("below_from");
    expect(search?.stop.reason).toBe("below_from");
  }, 300_000);

  it("from 1 to 64: capacity 5, each load run once, and the levels far below the SLO stopped before requestsPerLevel", async () => {
    const searched = setup({ search: { from: 1, to: 64, resolution: 0.1 } });
    const doc = await searched.run();
    const search = doc.summary.search;
    expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    const loads = doc.levels.map((l) => loadPosition(l.load));
    expect(new Set(loads).size).toBe(loads.length);
    // The doubling's first miss (8: 19.9 tok/s a stream against 24) is decided at a look before 64
    // requests; the loads above it are run for the knee's aggregate only: they send 2N requests (at
    // least 20) and no more, and decide nothing.
    const eight = doc.levels.find((l) => loadPosition(l.load) === 8);
    expect(eight?.probe?.decision).toBe("misses");
    expect(eight?.probe?.requests as number).toBeLessThan(64);
    const above = doc.levels.filter((l) => loadPosition(l.load) > 8);
    expect(above.length).toBeGreaterThan(0);
    for (const l of above) {
      expect(l.probe?.decision).toBe("not_judged");
      expect(l.requests.sent).toBe(Math.max(20, 2 * loadPosition(l.load)));
    }
    // TTFT p95 (the config's default TTFT SLO, 2000 ms) is bounded once, at the capacity bisection's
    // level that meets (5): 63 requests after the 2N of the ramp, at the look put there. The doubling's
    // levels below it (1, 2, 4) meet on speed at their first look and take TTFT's `meets` from it.
    const meets = doc.levels.filter((x) => x.probe?.decision === "meets");
    expect(meets.map((l) => loadPosition(l.load))).toEqual([1, 2, 4, 5]);
    for (const l of meets)
      expect(l.probe?.requests).toBe(loadPosition(l.load) === 5 ? 63 + 10 : 2 * loadPosition(l.load) + 10);
    expect(search?.requests).toBe(searched.endpoint.sent);
    console.log(
      `searched 1..64: ${search?.requests} requests sent (ladder 1..64: ${search?.ladderRequests});`,
      doc.levels.map(
        (l) => `${loadPosition(l.load)}: ${l.probe?.decision} at ${l.probe?.requests}, ${l.requests.sent} sent`,
      ),
    );
  }, 300_000);

  it("with the issue's per-stream SLO alone (no TTFT limit): capacity 5 and the knee for fewer requests than the ladder 1..64 measures (448)", async () => {
    const searched = setup({ search: { from: 1, to: 64, resolution: 0.1 } }, 0, {
      minOutputTokensPerSecond: 24,
      maxTtftMs: null,
    });
    const doc = await searched.run();
    const search = doc.summary.search;
    expect(search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    expect(search?.knee.status).toBe("found");
    // Every request sent, warm-ups included, against the ladder's measured 7 x 64.
    expect(search?.requests).toBe(searched.endpoint.sent);
    expect(search?.requests as number).toBeLessThan(7 * 64);
    // With no TTFT bound to draw for, a level that meets stops at the first look that bounds per-stream p50.
    for (const l of doc.levels.filter((x) => x.probe?.decision === "meets")) expect(l.probe?.requests).toBeLessThan(64);
    console.log(`searched 1..64, per-stream SLO alone: ${search?.requests} requests sent (ladder: ${7 * 64} measured)`);
  }, 300_000);

  it.each([1, 2])(
    "resumed after a crash on %i client threads, takes up the levels it ran and ends where an uninterrupted search ends, no load run twice",
    async (threads) => {
      const search = { search: { from: 1, to: 64, resolution: 0.1 } };
      const slo = { minOutputTokensPerSecond: 24, maxTtftMs: null };
      const uninterrupted = setup(search, 0, slo);
      const whole = await uninterrupted.run(uninterrupted.threads(threads));
      // The first run saves after each level, as a Lambda does; it "crashes" after its fourth.
      const saves: RunDocument[] = [];
      const first = setup(search, 0, slo);
      await first.run({ ...first.threads(threads), onLevel: (partial) => void saves.push(partial) });
      const saved = saves[3] as RunDocument;
      expect(saved.levels).toHaveLength(4);
      const second = setup(search, 0, slo);
      const resumed = await second.run({ ...second.threads(threads), previous: saved });
      const loads = (d: RunDocument) => d.levels.map((l) => loadPosition(l.load));
      expect(loads(resumed)).toEqual(loads(whole));
      expect(new Set(loads(resumed)).size).toBe(resumed.levels.length);
      expect(resumed.levels.map((l) => l.probe?.order).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        whole.levels.map((_, i) => i + 1),
      );
      // Every level above N = 1 ran on the threads asked for, the resumed ones too.
      for (const l of resumed.levels) expect(l.client.threads).toBe(loadPosition(l.load) === 1 ? 1 : threads);
      expect(resumed.summary.search?.capacity).toEqual(whole.summary.search?.capacity);
      expect(resumed.summary.search?.knee).toEqual(whole.summary.search?.knee);
      expect(resumed.summary.search?.stop.reason).toBe(whole.summary.search?.stop.reason);
      // The second run sent only the levels the first had not saved.
      const savedSent = saved.levels.reduce((sum, l) => sum + l.requests.sent + 1, 0);
      expect(second.endpoint.sent).toBe((resumed.summary.search?.requests as number) - savedSent);
    },
    300_000,
  );

  it("on 2 client threads: the same looks and decisions as on one, and the judge's stop reaches the threads", async () => {
    const search = { search: { from: 1, to: 64, resolution: 0.1 } };
    const one = await setup(search).run();
    const threaded = setup(search);
    const two = await threaded.run(threaded.threads(2));
    const probes = (d: RunDocument) =>
      d.levels.map((l) => [loadPosition(l.load), l.probe?.decision, l.probe?.requests]);
    expect(probes(two)).toEqual(probes(one));
    expect(two.summary.search?.capacity).toEqual({ value: 5, lo: 5, hi: 6, status: "found" });
    expect(two.summary.search?.knee).toEqual(one.summary.search?.knee);
    for (const l of two.levels) {
      expect(l.client.threads).toBe(loadPosition(l.load) === 1 ? 1 : 2);
      // Each send once, whichever thread took it.
      const indexes = two.samples.filter((s) => s.level === l.level).map((s) => s.index);
      expect(indexes).toEqual(Array.from({ length: l.requests.sent }, (_, i) => i));
      // A look that decided stopped the sends: a thread's worker sends at most one request past it
      // (the main thread's verdict reaches it after its next send), a closed loop's N in all.
      const look = l.probe?.requests as number;
      if (l.probe?.decision === "meets" || l.probe?.decision === "misses")
        expect(l.requests.sent).toBeLessThanOrEqual(look + 2 * loadPosition(l.load));
    }
    expect(two.summary.search?.requests).toBe(threaded.endpoint.sent);
  }, 300_000);

  it("an open loop's probed rates on 2 client threads: every send once whichever thread sent it, decided on the merged sends, spent as the endpoint counts", async () => {
    // The route at a rate: 16 slots, so the per-stream SLO fails once the rate holds enough in flight.
    const arrival = { mode: "poisson", seed: 3, ratesPerSecond: { search: { from: 1, to: 32, resolution: 0.1 } } };
    const threaded = setup(undefined, 0, { minOutputTokensPerSecond: 24, maxTtftMs: null }, { arrival });
    const doc = await threaded.run(threaded.threads(2));
    const search = doc.summary.search;
    expect(search?.axis).toBe("rate");
    expect(search?.requests).toBe(threaded.endpoint.sent);
    for (const l of doc.levels) {
      expect(l.client.threads).toBe(2);
      expect(doc.samples.filter((s) => s.level === l.level).map((s) => s.index)).toEqual(
        Array.from({ length: l.requests.sent }, (_, i) => i),
      );
    }
    // It decided: met low, missed high, and named a bracket.
    const decisions = doc.levels.map((l) => l.probe?.decision);
    expect(decisions[0]).toBe("meets");
    expect(decisions).toContain("misses");
    expect(["found", "undecided"]).toContain(search?.capacity.status);
  }, 300_000);

  it("on 2 client threads, a level not judged draws on past its failures as on one: its threads wait for the grown count", async () => {
    // Measured sends 1 and 6 of N = 16 (above the miss at 8: run for the knee's aggregate, 2N = 32) break.
    const breaks = (prompt: string) => /^(1|6) at level 16 /.test(prompt);
    const search = { search: { from: 1, to: 64, resolution: 0.1 } };
    const sixteen = (d: RunDocument) => d.levels.find((l) => loadPosition(l.load) === 16);
    const one = await setup(search, breaks).run();
    const threaded = setup(search, breaks);
    const two = await threaded.run(threaded.threads(2));
    for (const d of [one, two]) {
      expect(sixteen(d)?.probe?.decision).toBe("not_judged");
      expect(sixteen(d)?.requests.incomplete).toBe(2);
      // 2N, and 20 more for each broken stream: one broken stream in 20 is within the failure rule's 5 %.
      expect(sixteen(d)?.requests.sent).toBe(32 + 2 * 20);
    }
    expect(sixteen(two)?.client.threads).toBe(2);
    expect(two.summary.search?.requests).toBe(threaded.endpoint.sent);
  }, 300_000);

  it("keeps the levels it ran and says why when failures stop it", async () => {
    const failing = setup({ search: { from: 1, to: 64, resolution: 0.1 } }, 3);
    const doc = await failing.run();
    expect(doc.levels).toHaveLength(1);
    expect(doc.summary.search?.stop.reason).toBe("failures");
    expect(doc.summary.stop?.reason).toBe("failures");
    expect(doc.summary.search?.capacity.status).toBe("not_reached");
  });

  it("a probe the client could not keep up with stops the search as client_limited: its capacity is not found", async () => {
    // The client's own health is bad from the third level on: its reads wait 500 ms behind a busy loop.
    let levelsWatched = 0;
    const busyFromThird = () => {
      const busy = ++levelsWatched >= 3;
      const ms = busy ? 500 : 0;
      return {
        firstTokenRead: () => {},
        stop: () => ({
          eventLoopLagP99Ms: ms,
          eventLoopLagMeanMs: ms,
          loopUtilization: busy ? 1 : 0,
          cpuShare: busy ? 1 : 0,
          firstTokenReadDelayMs: ms,
        }),
      };
    };
    const searched = setup({ search: { from: 1, to: 64, resolution: 0.1 } }, 0, {
      minOutputTokensPerSecond: 24,
      maxTtftMs: null,
    });
    const doc = await searched.run({ watchHealth: busyFromThird });
    const search = doc.summary.search;
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 4]);
    const four = doc.levels[2];
    expect(four?.valid).toBe(false);
    expect(four?.invalid.some((r) => r.code.startsWith("client_"))).toBe(true);
    expect(search?.stop.reason).toBe("client_limited");
    expect(search?.stop.detail).toMatch(/^the client could not keep up at 4: /);
    expect(search?.capacity.status).not.toBe("found");
  });

  it("never sends more than its budget: at it the search stops with the brackets it has, saying so", async () => {
    const searched = setup({ search: { from: 1, to: 64, resolution: 0.1, maxRequests: 150 } }, 0, {
      minOutputTokensPerSecond: 24,
      maxTtftMs: null,
    });
    const doc = await searched.run();
    const search = doc.summary.search;
    expect(searched.endpoint.sent).toBeLessThanOrEqual(150);
    expect(search?.requests).toBe(searched.endpoint.sent);
    expect(search?.budget).toBe(150);
    expect(search?.stop.reason).toBe("budget");
    expect(search?.stop.detail).toMatch(/^the search reached its budget of 150 requests/);
    // It had met at 1, 2 and 4 and missed at 8: the bracket it has, not resolved.
    expect(search?.capacity).toMatchObject({ value: 4, lo: 4, hi: 8, status: "not_reached" });
  });

  it("plans the search's upper bound of requests, tokens and time", () => {
    const { config, target } = setup({ search: { from: 1, to: 64, resolution: 0.1 } });
    const plan = planTarget(config, target);
    // The state machine's worst path over routes of every capacity and knee in 1..64: 15 levels, each
    // at its cap of 256 (and a warm-up); but never more than its budget, the doubling ladder's 7 x 65.
    expect(plan.search?.levels).toBe(15);
    expect(plan.search?.budget).toBe(7 * 65);
    expect(plan.search?.requests).toBe(7 * 65);
    expect(plan.search?.outputTokens).toBe(7 * 65 * TOKENS);
    expect(plan.search?.upperBoundSeconds).toBeGreaterThan(0);
  });
});
