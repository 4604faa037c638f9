/** A fixture store for the site tests: synthetic (simulated) targets with history, a hostile label, a partial run, a broken file. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeRun } from "@kneeboard/core/metrics";
import { seededRandom } from "@kneeboard/core/random";
import { evaluateStore } from "@kneeboard/core/regress/check";
import { concurrencyOf, loadPosition, type RunDocument } from "@kneeboard/core/run";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { syntheticRun, syntheticToolCalls } from "@kneeboard/core/synthetic";

export const HOSTILE_LABEL = `<img src=x onerror="window.__pwned=1"> & <script>window.__pwned=2</script>`;

/** The model two fixture targets serve by different routes (one model page, two curves). */
export const SHARED_MODEL_KEY = "shared-model-8b";

export const FIXTURE_TARGETS = [
  {
    id: "fast-small",
    label: "Fast small model",
    model: `acme/${SHARED_MODEL_KEY}`,
    single: 180,
    ttft: 120,
    saturation: 4,
    // List price, and a metered cost far from it: the page must say they differ.
    pricing: { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.2 },
    costUsdPerRequest: 0.0001,
  },
  {
    id: "slow-large",
    label: "Slow large model",
    model: `other-host/${SHARED_MODEL_KEY}`,
    single: 40,
    ttft: 600,
    saturation: 16,
    pricing: { hourlyUsd: 2 },
  },
  {
    id: "hostile",
    label: HOSTILE_LABEL,
    model: HOSTILE_LABEL,
    modelKey: "hostile-model",
    single: 90,
    ttft: 250,
    saturation: 8,
  },
  { id: "partial-one", label: "Target whose last run is partial", single: 120, ttft: 200, saturation: 2 },
] as const;

/** A second closed-loop scenario of two fixture targets: long prompts (retrieval), so their pages draw a prefill curve. */
export const RAG = { scenario: "rag", promptTokens: 4000, targets: ["fast-small", "slow-large"], runs: 2 } as const;

/** A simulated target measured only on an open loop (Poisson arrivals at set rates). */
export const OPEN_LOOP = {
  id: "poisson-route",
  label: "Open-loop route",
  scenario: "chat-poisson",
  rates: [0.5, 1, 2, 4],
  /** The levels that meet the SLO: capacity is the highest one's rate. */
  meetsSlo: [true, true, true, false],
  runs: 2,
} as const;

/**
 * A simulated target on an open loop in the default scenario, beside the closed-loop targets (as the
 * reference targets' `ref-small-open` runs in `chat`): the scenario's leaderboard must still rank the
 * closed-loop targets by their single-stream and concurrent figures, and table this one apart.
 */
export const CHAT_OPEN = {
  id: "chat-open-route",
  label: "Open-loop route in chat",
  /** A third route of the shared model: its model page keeps the two closed-loop routes' curves. */
  model: `open-host/${SHARED_MODEL_KEY}`,
  rates: [2, 4, 8],
  meetsSlo: [true, true, false],
  runs: 2,
} as const;

/**
 * Tool calls (issue 45) on the chat runs of four fixture targets: the shared model's reference route
 * (`fast-small`), a faithful route of it (`slow-large`: its verdict `same`), a route whose arguments
 * break in 30 % of its calls (`chat-open-route`: `worse`), and a route that refuses tools (`hostile`).
 * `partial-one` has none: its cell is a dash.
 */
export const TOOL_ROUTES: Record<string, { reference?: true; broken?: number; support?: "no-tool-support" }> = {
  "fast-small": { reference: true },
  "slow-large": {},
  "chat-open-route": { broken: 0.3 },
  hostile: { support: "no-tool-support" },
};

/** The run with a tool-call phase when its target is one of `TOOL_ROUTES` (drawn from its own `random`). */
export function withToolCalls(doc: RunDocument, random: () => number): RunDocument {
  const route = TOOL_ROUTES[doc.targetId];
  if (!route || doc.scenario !== "chat") return doc;
  return {
    ...doc,
    ...(route.reference ? { reference: true } : {}),
    toolCalls: syntheticToolCalls({ random, broken: route.broken ?? 0, support: route.support ?? "supported" }),
  };
}

/** A synthetic run with the prompt of `promptTokens` tokens (samples and workload both say so). */
export function withPrompt(doc: RunDocument, promptTokens: number): RunDocument {
  return {
    ...doc,
    workload: { ...doc.workload, promptTokens },
    samples: doc.samples.map((s) => (s.promptTokens === null ? s : { ...s, promptTokens })),
  };
}

/**
 * An open-loop run built from a synthetic one: level n is the rate `rates[n-1]` (requests/s), with its
 * achieved rate, requests in flight, schedule lag, SLO verdict and goodput, and the summary recomputed
 * by the core (capacity in requests/s, no single-stream figure).
 */
export function openLoopRun(doc: RunDocument, rates: readonly number[], meetsSlo: readonly boolean[]): RunDocument {
  const levels = doc.levels.map((l, i) => {
    const rate = rates[i] as number;
    const meets = meetsSlo[i] ?? false;
    return {
      ...l,
      load: { kind: "open" as const, arrival: "poisson" as const, ratePerSecond: rate },
      closed: null,
      open: {
        achievedRatePerSecond: rate * 0.98,
        inFlightMean: rate * 1.5,
        inFlightMax: Math.ceil(rate * 3),
        scheduleLagMs: { p50: 0.3, p99: 1.8 },
      },
      meetsSlo: meets,
      goodputOutputTokensPerSecond: (l.aggregateOutputTokensPerSecond ?? 0) * (meets ? 0.95 : 0.3),
    };
  });
  return {
    ...doc,
    workload: { ...doc.workload, arrival: { mode: "poisson", ratesPerSecond: [...rates], seed: 1 } },
    levels,
    summary: summarizeRun(levels),
  };
}

export const MALFORMED_KEY = "runs/slow-large/20991231T000000Z-broken.json";

/** Builds the fixture store; returns it, its index and the store folder. */
export async function fixtureStore(runsPerTarget = 12) {
  const root = mkdtempSync(join(tmpdir(), "kneeboard-site-fixture-"));
  const store = new FolderStore(root);
  const index = new StoreRunIndex(store);
  const random = seededRandom(7);
  // The tool calls draw from their own stream, so the figures the other tests read stay as they were.
  const tools = seededRandom(45);
  for (const t of FIXTURE_TARGETS) {
    for (let r = 0; r < runsPerTarget; r++) {
      const last = r === runsPerTarget - 1;
      await saveRun(
        store,
        index,
        withToolCalls(
          syntheticRun({
            targetId: t.id,
            label: t.label,
            model: "model" in t ? t.model : undefined,
            modelKey: "modelKey" in t ? t.modelKey : undefined,
            pricing: "pricing" in t ? t.pricing : undefined,
            costUsdPerRequest: "costUsdPerRequest" in t ? t.costUsdPerRequest : undefined,
            runId: `${t.id}-r${r}`,
            startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r)).toISOString(),
            singleStreamTokensPerSecond: t.single,
            ttftMs: t.ttft,
            saturationStreams: t.saturation,
            status: last && t.id === "partial-one" ? "partial" : "complete",
            random,
          }),
          tools,
        ),
      );
    }
  }
  // The rag scenario of two targets: the same routes, 4,000-token prompts, slower first tokens.
  for (const t of FIXTURE_TARGETS.filter((x) => (RAG.targets as readonly string[]).includes(x.id))) {
    for (let r = 0; r < RAG.runs; r++) {
      const doc = syntheticRun({
        targetId: t.id,
        scenario: RAG.scenario,
        label: t.label,
        model: "model" in t ? t.model : undefined,
        runId: `${t.id}-rag-r${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r + 1)).toISOString(),
        singleStreamTokensPerSecond: t.single,
        ttftMs: t.ttft * 6,
        saturationStreams: t.saturation,
        concurrency: [1, 2, 4],
        random,
      });
      await saveRun(store, index, withPrompt(doc, RAG.promptTokens));
    }
  }
  // The open-loop targets: one in a scenario of its own, one in chat beside the closed loops.
  const openLoops = [
    { ...OPEN_LOOP, model: undefined, hour: 2 },
    { ...CHAT_OPEN, scenario: undefined, hour: 3 },
  ];
  for (const open of openLoops) {
    for (let r = 0; r < open.runs; r++) {
      const doc = syntheticRun({
        targetId: open.id,
        scenario: open.scenario,
        label: open.label,
        model: open.model,
        runId: `${open.id}-r${r}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, 6 * r + open.hour)).toISOString(),
        singleStreamTokensPerSecond: 100,
        ttftMs: 200,
        saturationStreams: 4,
        concurrency: open.rates.map((_, i) => i + 1),
        random,
      });
      await saveRun(store, index, withToolCalls(openLoopRun(doc, open.rates, open.meetsSlo), tools));
    }
  }
  // A run document that is not one: the site must skip it with a warning naming it.
  writeFileSync(join(root, MALFORMED_KEY), '{"schemaVersion": 1, "runId": 5}');
  await evaluateStore({ store, index, now: "2026-12-01T00:00:00.000Z" });
  return { store, index, root };
}

/** A simulated target replaying a recorded trace, in a scenario of its own: the trace kind's pages. */
export const TRACE = {
  id: "trace-route",
  label: "Trace replay route",
  model: "acme/trace-model-8b",
  scenario: "trace",
  speedups: [1, 2],
} as const;

/** A simulated target of users in conversation, in a scenario of its own: the conversation kind's pages. */
export const CONVERSATION = {
  id: "conversation-route",
  label: "Conversation route",
  model: "acme/conversation-model-8b",
  scenario: "conversation",
  concurrency: [1, 2],
} as const;

/** A level's schedule figures when nothing recorded them. */
export const NO_SCHEDULE = { achievedRatePerSecond: null, inFlightMean: null, inFlightMax: null, scheduleLagMs: null };

/** A trace replay built from a synthetic run: level n is the trace sent at `speedups[n-1]`, with both cache shares. */
export function traceRun(doc: RunDocument, speedups: readonly number[]): RunDocument {
  const levels = doc.levels.map((l, i) => ({
    ...l,
    load: { kind: "trace" as const, speedup: speedups[i] as number },
    closed: null,
    trace: { ...NO_SCHEDULE, reusablePromptTokenShare: 0.5 },
    cachedPromptTokenShare: 0.4,
  }));
  return {
    ...doc,
    workload: { ...doc.workload, arrival: { mode: "trace", file: "mooncake.jsonl", format: "mooncake" } },
    trace: {
      name: "mooncake.jsonl",
      format: "mooncake",
      sha256: "0".repeat(64),
      start: 0,
      limit: null,
      requests: 40,
      durationSeconds: 12,
      skipped: 0,
      blockSize: 512,
      inputTokens: 40_000,
      outputTokens: 4_000,
      reusablePromptTokenShare: 0.5,
    },
    levels,
    summary: summarizeRun(levels),
  };
}

/**
 * A conversation run built from a synthetic closed loop: each level a conversation level of N users
 * (its figures under its kind, as a sweep writes them), its three turns, each turn's TTFT `growth`
 * times the last's (by default 1: later turns' TTFT flat, a prompt cache), and the cache verdict given.
 */
export function conversationRun(
  doc: RunDocument,
  { growth = 1, verdict = "reported" }: { growth?: number; verdict?: "reported" | "no_cache_seen" } = {},
): RunDocument {
  const levels = doc.levels.map((l) => ({
    ...l,
    load: { kind: "conversation" as const, concurrency: concurrencyOf(l.load) ?? 1, turns: 3 },
    closed: null,
    conversation: {
      startSpreadMs: l.closed?.startSpreadMs ?? null,
      turns: 3,
      thinkSeconds: 0,
      byTurn: [1, 2, 3].map((turn) => ({
        turn,
        n: 4,
        ttftMs: { p50: 200 * growth ** (turn - 1), p95: 250 * growth ** (turn - 1) },
        promptTokensP50: 150 * turn,
        cachedPromptTokenShare: verdict === "reported" && turn > 1 ? 0.6 : null,
      })),
      laterTurnsTtftMs: { p50: 200 * growth ** 1.5, p95: 250 * growth ** 2 },
      cache: {
        verdict,
        fromTurn: 2,
        toTurn: 3,
        ttftRatio: growth,
        promptRatio: 1.5,
        growthThreshold: 1.125,
        detail:
          verdict === "reported"
            ? "the route reported cached prompt tokens"
            : "no prompt cache seen: TTFT grows with the history",
      },
    },
  }));
  return {
    ...doc,
    workload: { ...doc.workload, conversation: { turns: 3, sharedPrefixTokens: 100 } },
    levels,
    summary: summarizeRun(levels),
  };
}

/**
 * A simulated closed-loop target whose levels were searched, not laddered (issue 44), in a scenario of
 * its own: per-stream p50 falls through the default SLO's 20 tok/s between N = 10 and 11 (about 21 and
 * 19 tok/s), so the search brackets capacity by doubling (16 misses), bisects to [10, 11], then reads
 * the knee between 4 and 5 (aggregate flat from about 5).
 */
export interface SearchedSpec {
  id: string;
  label: string;
  model: string;
  scenario: string;
  single: number;
  ttft: number;
  saturation: number;
  /** The loads in the order the search ran them. */
  probes: readonly number[];
  /** The largest probed load that met the SLO: every probe at or below it met it. */
  capacity: number;
  search: { from: number; to: number; resolution: number; confidence: number };
  runs: number;
  /** Each run's capacity, oldest first, where the runs differ (the standing's searched interval); else `capacity` in each. */
  capacities?: readonly number[];
}

export const SEARCHED: SearchedSpec = {
  id: "searched-route",
  label: "Searched route",
  model: "acme/searched-model-8b",
  scenario: "search",
  single: 53.4,
  ttft: 100,
  saturation: 4,
  /** The loads in the order the search ran them. */
  probes: [1, 2, 4, 8, 16, 12, 10, 11, 6, 5],
  /** The largest probed load that met the SLO: every probe at or below it met it. */
  capacity: 10,
  search: { from: 1, to: 64, resolution: 0.1, confidence: 0.95 },
  // Three runs found 11, 12, then 10 users: the standing's searched capacity is their median, 11, in [10, 12].
  runs: 3,
  capacities: [11, 12, 10],
};

/** A second searched route in the same scenario, of a smaller capacity (6 users, in [6, 7]): the capacity column sorts the two. */
export const SEARCHED_SMALL: SearchedSpec = {
  ...SEARCHED,
  id: "searched-small",
  label: "Searched smaller route",
  model: "acme/searched-small-4b",
  single: 40,
  probes: [1, 2, 4, 8, 6, 7, 3],
  capacity: 6,
  runs: 2,
  capacities: [6, 6],
};

/** Requests the doubling ladder from..to would send at the synthetic runs' default of 2N a level (at least 4). */
export function ladderRequests(from: number, to: number): number {
  let sum = 0;
  for (let n = from; n <= to; n *= 2) sum += Math.max(4, 2 * n);
  return sum;
}

/** The spec of a searched spec's run r (0 the oldest): its capacity is `capacities[r]` where given. */
export function searchedRunSpec(spec: SearchedSpec, r: number): SearchedSpec {
  return { ...spec, capacity: spec.capacities?.[r] ?? spec.capacity };
}

/**
 * A searched run built from a synthetic closed loop over `spec.probes` (sorted): each level carries
 * its probe order and decision (meets up to `capacity`), its confidence bounds and requests, and the
 * summary the search's brackets, stop and spend, as a searched run document records them.
 */
export function searchedRun(doc: RunDocument, spec: SearchedSpec = SEARCHED): RunDocument {
  const order = (n: number) => spec.probes.indexOf(n) + 1;
  const levels = doc.levels.map((l) => {
    const n = loadPosition(l.load);
    const meets = n <= spec.capacity;
    return {
      ...l,
      meetsSlo: meets,
      probe: {
        order: order(n),
        decision: meets ? ("meets" as const) : ("misses" as const),
        ttftP95UpperMs: (l.ttftMs.p95 ?? 0) * 1.1,
        perStreamP50LowerTokensPerSecond: (l.perStream.outputTokensPerSecond.p50 ?? 0) * 0.95,
        requests: l.requests.sent,
      },
    };
  });
  const summary = summarizeRun(levels);
  const probed = [...spec.probes].sort((a, b) => a - b);
  const knee = summary.kneeConcurrency;
  const below = (x: number) => probed.filter((n) => n < x).at(-1) ?? null;
  const above = (x: number) => probed.find((n) => n > x) ?? null;
  const ok = doc.samples.filter((s) => s.outcome === "ok");
  return {
    ...doc,
    workload: { ...doc.workload, concurrency: { search: { ...spec.search } } },
    levels,
    summary: {
      ...summary,
      // As the sweep records a search's answer: its bracket, at its confidence.
      capacityBracket: {
        kind: "searched",
        lo: spec.capacity,
        hi: above(spec.capacity),
        confidence: spec.search.confidence,
      },
      search: {
        axis: "concurrency",
        ...spec.search,
        capacity: { value: spec.capacity, lo: spec.capacity, hi: above(spec.capacity), status: "found" },
        knee:
          knee === null
            ? { value: null, lo: null, hi: null, status: "not_reached" }
            : { value: knee, lo: below(knee), hi: knee, status: "found" },
        stop: { reason: "resolved", detail: "capacity and knee brackets within 10 %, or one user apart" },
        requests: levels.reduce((sum, l) => sum + l.requests.sent, 0),
        promptTokens: ok.reduce((sum, s) => sum + (s.promptTokens ?? 0), 0),
        outputTokens: ok.reduce((sum, s) => sum + (s.completionTokens ?? 0), 0),
        ladderRequests: ladderRequests(spec.search.from, spec.search.to),
      },
    },
  };
}
