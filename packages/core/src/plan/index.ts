/**
 * @module What a sweep will do, worked out from the config alone (no request is sent): levels,
 * requests, an upper bound and an expected figure for its duration, how many Lambda invocations it
 * takes, and the chunk rate its top level asks of the client.
 */
import { availableParallelism } from "node:os";
import {
  type CanarySettings,
  type Config,
  canaryChoice,
  DEFAULT_CANARY,
  modelKeyOf,
  scenariosOf,
  type Target,
  type ToolCallSettings,
  toolCallsFor,
  type Workload,
  workloadFor,
} from "../config/index.ts";
import { rounds } from "../drive/plan.ts";
import type { ConfigProblem } from "../errors/index.ts";
import { conversationPlan } from "../kinds/conversation/index.ts";
import {
  type LevelLoad,
  type LevelPlan,
  levelAt,
  levelSearch,
  loadChunksPerSecond,
  loadThreadBound,
  planLevels as planKindLevels,
  userLevels,
} from "../kinds/index.ts";
import { MAX_FAILURE_RATE, MIN_OPEN_LOOP_REQUESTS } from "../metrics/index.ts";
import { SAME_MODEL_MIN_SAMPLES } from "../same-model/index.ts";
import { CANARY_PROMPTS } from "../same-model/prompts.ts";
import { doublingLadder, searchLevelBound, searchPlan, ttftBoundSpends } from "../search/bounds.ts";
import { groupSize, minimumRequests, rampOf, ttftBoundLook } from "../search/decide.ts";
import { TOOL_SUITE, type ToolSuite } from "../tool-calls/suite.ts";
import type { Traces } from "../trace/index.ts";
import {
  DEFAULT_MAX_INVOCATIONS,
  fitInvocations,
  type InvocationFit,
  LAMBDA_DEADLINE_MARGIN_SECONDS,
  LAMBDA_INVOCATION_SECONDS,
} from "./invocations.ts";
import type { CanaryPlan, SearchUpperBound, TargetPlan, ToolCallsPlan } from "./target-plan.ts";

export type { ConversationPlan } from "../kinds/conversation/index.ts";
export type { OpenArrival } from "../kinds/open/index.ts";
export {
  CLOUDFRONT_FREE_PATHS_PER_MONTH,
  CLOUDFRONT_USD_PER_PATH,
  costAtScale,
  DYNAMO_USD_PER_READ_UNIT,
  DYNAMO_USD_PER_WRITE_UNIT,
  FILES_PER_PUBLISH,
  HISTORY_DAYS,
  INDEX_ENTRY_KB,
  LAMBDA_MAX_MB,
  LAMBDA_MB_PER_VCPU,
  LAMBDA_USD_PER_GB_SECOND,
  LAMBDA_USD_PER_REQUEST,
  type LambdaCost,
  lambdaCostPerDay,
  PUBLISH_MEMORY_MB,
  S3_USD_PER_GET,
  S3_USD_PER_PUT,
  type ScaleCost,
  SUMMARY_KB,
  slotsPerDay,
  sweepMemoryMb,
} from "./cost.ts";
export type { CanaryPlan, SearchUpperBound, TargetPlan, ToolCallsPlan };
export {
  conversationPlan,
  DEFAULT_MAX_INVOCATIONS,
  fitInvocations,
  type InvocationFit,
  LAMBDA_DEADLINE_MARGIN_SECONDS,
  LAMBDA_INVOCATION_SECONDS,
  type LevelLoad,
  type LevelPlan,
  loadChunksPerSecond,
  loadThreadBound,
};

/**
 * The levels a workload sweeps, low to high, each with its load, name and time at `requestSeconds` a
 * request (its kind's expansion, kinds/); a trace replay's window comes from `traces` (`loadTraces`).
 */
export function planLevels(workload: Workload, requestSeconds: number, traces?: Traces): LevelPlan[] {
  const context = { requestSeconds, ...(traces ? { traces } : {}) };
  const searched = levelSearch(workload);
  return searched ? searchUpperBoundLevels(workload, searched, context) : planKindLevels(workload, context);
}

/**
 * The most a search can run (docs/config.md#searched-levels), as levels: its doubling ladder, then the
 * bisections' levels (`searchLevelBound`, the state machine's worst path), each drawing its cap of
 * requests until its budget (`maxRequests`) is spent. A bisection's level is planned at `from`, the
 * load whose requests take longest in a closed loop (fewest at once), so the plan's requests, tokens,
 * dollars and time are the search's upper bound, never its expected cost.
 */
function searchUpperBoundLevels(
  workload: Workload,
  searched: NonNullable<ReturnType<typeof levelSearch>>,
  context: { requestSeconds: number; traces?: Traces },
): LevelPlan[] {
  const plan = searchPlan(workload, searched);
  const ladder = doublingLadder(plan.bounds);
  const loads = [
    ...ladder,
    ...Array.from({ length: searchLevelBound(plan.bounds) - ladder.length }, () => plan.bounds.from),
  ];
  // Each at its cap, in the order run, until the budget is spent: a search never sends more. A search
  // of users from above 1 runs one user alone first (the single-stream figure), outside its budget.
  let left = plan.budget;
  const single = levelAt(workload, 1, 1, context);
  const out: LevelPlan[] =
    userLevels(workload) !== null && plan.bounds.from > 1
      ? [{ ...single, name: `${single.name} (one user alone, before the search)` }]
      : [];
  for (const [i, load] of loads.entries()) {
    const requests = Math.min(plan.cap, left - workload.warmupRequests);
    if (requests <= 0) break;
    left -= requests + workload.warmupRequests;
    const level = levelAt(workload, load, out.length + 1, context);
    const timing = levelAt({ ...workload, requestsPerLevel: requests }, load, out.length + 1, context);
    out.push({ ...timing, name: `${level.name} (search level ${i + 1}, at most)` });
  }
  return out;
}

/**
 * Stream chunks one core of client parses per CPU-second: the low end of what npm run bench measured
 * here (the client-cost table, "chunks per CPU-second (one core)": 42 000 to 55 000 for kneeboard on
 * a 2-core machine, 2026-12-03 and 04).
 */
export const CLIENT_CHUNKS_PER_CPU_SECOND = 40_000;

/**
 * The share of a core one client thread is planned to use: reads come in bursts and wait for one
 * another as a loop fills, and garbage collection needs its turn, so a thread is planned well under
 * the 90 % busy loop that the health check flags as client limited.
 */
export const CLIENT_PLANNED_CORE_SHARE = 0.7;

/** Stream chunks per second one client thread (on a core of its own) is planned to carry: 28 000. */
export const CLIENT_CHUNKS_PER_SECOND_PER_THREAD = CLIENT_CHUNKS_PER_CPU_SECOND * CLIENT_PLANNED_CORE_SHARE;

/**
 * Worker threads a level needs: its expected chunk rate (chunks/s, N x the per-stream rate) over what
 * one thread is planned to carry, rounded up, at least 1, at most `cores` (the process's available parallelism)
 * and at most `concurrency` (a thread runs at least one stream).
 */
export function threadsForChunkRate(chunksPerSecond: number, cores: number, concurrency: number): number {
  const needed = Math.ceil(chunksPerSecond / CLIENT_CHUNKS_PER_SECOND_PER_THREAD);
  return Math.max(1, Math.min(needed, Math.floor(cores), Math.floor(concurrency)));
}

/** What the expected duration and chunk rate assume about a target nobody has measured yet. */
export interface PlanAssumptions {
  /** Output tokens per second one stream gets (the README's cost figures use 50). */
  outputTokensPerSecondPerStream: number;
  /** Time to first token of a prompt of up to `ttftPromptTokens`, seconds. */
  ttftSeconds: number;
  /** Prompt tokens `ttftSeconds` covers; a longer prompt's TTFT grows by the rest at `prefillTokensPerSecond`. */
  ttftPromptTokens: number;
  /** Prompt tokens per second one stream is prefilled at, beyond `ttftPromptTokens`. */
  prefillTokensPerSecond: number;
  /** Stream chunks per output token (OpenAI-compatible servers send about one token per chunk). */
  chunksPerToken: number;
}

export const DEFAULT_PLAN_ASSUMPTIONS: PlanAssumptions = {
  outputTokensPerSecondPerStream: 50,
  ttftSeconds: 0.5,
  ttftPromptTokens: 1000,
  prefillTokensPerSecond: 2000,
  chunksPerToken: 1,
};

/** The assumed TTFT of a prompt of `promptTokens`: long prompts (a RAG or long-context scenario) take longer to prefill. */
export function expectedTtftSeconds(
  promptTokens: number,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
): number {
  return (
    assumptions.ttftSeconds +
    Math.max(0, promptTokens - assumptions.ttftPromptTokens) / assumptions.prefillTokensPerSecond
  );
}

/**
 * The prompt tokens a workload's request carries on average: `promptTokens`, or a conversation's mean
 * over its turns (the history makes later turns longer).
 */
export function meanPromptTokens(workload: Workload): number {
  const talk = conversationPlan(workload);
  return talk ? talk.promptTokens / talk.turns : workload.promptTokens;
}

/** Chat-template tokens a canary prompt is assumed to carry on top of its text. */
const TEMPLATE_TOKENS = 8;

/** Requests a canary of these settings sends: every canary prompt `samplesPerPrompt` times. */
export function canaryRequests(settings: Pick<CanarySettings, "samplesPerPrompt">): number {
  return CANARY_PROMPTS.prompts.length * settings.samplesPerPrompt;
}

/**
 * The warning a canary too small for a verdict deserves: under `SAME_MODEL_MIN_SAMPLES` completions
 * it can only end `too-few-samples`, whatever the route does; null when it is large enough.
 */
export function smallCanaryWarning(settings: Pick<CanarySettings, "samplesPerPrompt">): string | null {
  const completions = canaryRequests(settings);
  return completions < SAME_MODEL_MIN_SAMPLES
    ? `canary of ${completions} completions is under the ${SAME_MODEL_MIN_SAMPLES} a verdict needs: it can only end too-few-samples`
    : null;
}

/** The canary phase of a (target, workload) with these settings: what it sends and what that costs. */
export function planCanary(
  target: Pick<Target, "pricing">,
  workload: Workload,
  settings: CanarySettings,
  outputTokensPerSecondPerStream: number,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
): CanaryPlan {
  const prompts = CANARY_PROMPTS.prompts;
  const requests = canaryRequests(settings);
  const promptTokens =
    settings.samplesPerPrompt * prompts.reduce((sum, p) => sum + Math.ceil(p.text.length / 4) + TEMPLATE_TOKENS, 0);
  return {
    settings,
    ...phaseCost(target, workload, settings, requests, promptTokens, outputTokensPerSecondPerStream, assumptions),
  };
}

/**
 * A phase of fixed requests after the levels (the canary, the tool calls): its output tokens at most,
 * its dollars at list prices, and its time in rounds of `concurrency` requests.
 */
function phaseCost(
  target: Pick<Target, "pricing">,
  workload: Workload,
  settings: { maxTokens: number; concurrency: number },
  requests: number,
  promptTokens: number,
  outputTokensPerSecondPerStream: number,
  assumptions: PlanAssumptions,
) {
  const outputTokens = requests * settings.maxTokens;
  const oneRequest = Math.min(
    workload.requestTimeoutSeconds,
    assumptions.ttftSeconds + settings.maxTokens / outputTokensPerSecondPerStream,
  );
  const roundsOf = rounds(requests, settings.concurrency);
  return {
    requests,
    promptTokens,
    outputTokens,
    usd: listPriceUsd(target.pricing, promptTokens, outputTokens),
    expectedSeconds: roundsOf * oneRequest,
    upperBoundSeconds: roundsOf * workload.requestTimeoutSeconds,
  };
}

/** Dollars at the target's list prices; null without them (none, or hourly). */
function listPriceUsd(
  pricing: Target["pricing"] | undefined,
  promptTokens: number,
  outputTokens: number,
): number | null {
  return pricing && "inputPerMillionUsd" in pricing
    ? (promptTokens * pricing.inputPerMillionUsd + outputTokens * pricing.outputPerMillionUsd) / 1e6
    : null;
}

/** The tool-call phase's requests, tokens, dollars and time for a target, at the assumed rates. */
export function planToolCalls(
  target: Pick<Target, "pricing">,
  workload: Workload,
  settings: ToolCallSettings,
  outputTokensPerSecondPerStream: number,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
  suite: ToolSuite = TOOL_SUITE,
): ToolCallsPlan {
  const requests = suite.prompts.length * settings.samplesPerPrompt;
  const sent = (p: ToolSuite["prompts"][number]) =>
    p.messages.reduce((sum, m) => sum + m.content.length, 0) +
    (p.tools.length > 0 ? JSON.stringify(p.tools).length : 0) +
    (p.responseSchema ? JSON.stringify(p.responseSchema).length : 0);
  const promptTokens =
    settings.samplesPerPrompt * suite.prompts.reduce((sum, p) => sum + Math.ceil(sent(p) / 4) + TEMPLATE_TOKENS, 0);
  return {
    settings,
    suite: suite.id,
    prompts: suite.prompts.length,
    unjudged: null,
    ...phaseCost(target, workload, settings, requests, promptTokens, outputTokensPerSecondPerStream, assumptions),
  };
}

/**
 * Why a route's tool calls cannot be judged (`ToolCallsPlan.unjudged`): no route of its model key is
 * marked reference (naming any reference routes under other model keys: routes whose `model` names
 * differ share a model only through `modelKey`), or the route is its model's reference and its only
 * route. Null when a verdict can come of it.
 */
export function toolCallsUnjudged(
  targets: readonly Pick<Target, "id" | "model" | "modelKey" | "reference">[],
  target: Pick<Target, "id" | "model" | "modelKey" | "reference">,
): string | null {
  const key = modelKeyOf(target);
  const others = targets.filter((t) => t.id !== target.id && modelKeyOf(t) === key);
  if (target.reference === true)
    return others.length === 0
      ? `it is the reference of model ${key} and its only route: no other route's tool calls are compared with it`
      : null;
  if (others.some((t) => t.reference === true)) return null;
  const elsewhere = targets.filter((t) => t.reference === true).map((t) => `${t.id} (${modelKeyOf(t)})`);
  return `no route of model ${key} is marked reference (targets[].reference), so no verdict can come of them${
    elsewhere.length > 0
      ? `; the reference routes ${elsewhere.join(", ")} serve other model keys: routes whose model names differ are compared only when they share a modelKey`
      : ""
  }`;
}

/** The tool-call phase a workload runs, planned; null when off. */
function toolCallsOf(
  targets: readonly Target[],
  target: Target,
  workload: Workload,
  perStream: number,
  assumptions: PlanAssumptions,
) {
  const settings = toolCallsFor(workload);
  if (!settings) return null;
  return {
    ...planToolCalls(target, workload, settings, perStream, assumptions),
    unjudged: toolCallsUnjudged(targets, target),
  };
}

/** One request's expected duration at the assumed rates (TTFT, longer for a long prompt, then maxTokens), never past its timeout, seconds. */
export function expectedRequestSeconds(
  workload: Workload,
  outputTokensPerSecondPerStream: number,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
): number {
  return Math.min(
    workload.requestTimeoutSeconds,
    expectedTtftSeconds(meanPromptTokens(workload), assumptions) + workload.maxTokens / outputTokensPerSecondPerStream,
  );
}

/**
 * The plan of one target in one scenario (default `chat`) under the config's workload (the target's
 * own fields override it, the scenario's override both). The config's `targets` decide the default
 * canary (`canaryChoice`); without them the target is taken as the config's only one.
 */
export function planTarget(
  config: Pick<Config, "workload"> & Partial<Pick<Config, "scenarios" | "targets">>,
  target: Target,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
  cores: number = availableParallelism(),
  scenario = "chat",
  traces?: Traces,
): TargetPlan {
  const workload = workloadFor(config, target, scenario);
  const canary = canaryChoice(config.targets ?? [target], target, workload);
  const perStream = target.expectedOutputTokensPerSecond ?? assumptions.outputTokensPerSecondPerStream;
  const requestSeconds = expectedRequestSeconds(workload, perStream, assumptions);
  const levels = planLevels(workload, requestSeconds, traces);
  const budget = LAMBDA_INVOCATION_SECONDS - LAMBDA_DEADLINE_MARGIN_SECONDS;
  const sum = (pick: (l: LevelPlan) => number) => levels.reduce((total, l) => total + pick(l), 0);
  // The busiest level: a ladder's last, a search's top doubling step (its bisections are planned at
  // `from`, after it, so the last level is not the top). No level (the config never allows an empty
  // list) asks for one stream.
  const chunksOf = (load: LevelLoad) =>
    loadChunksPerSecond(load, perStream, workload.maxTokens, assumptions.chunksPerToken);
  let top: LevelLoad = levels[0]?.load ?? { kind: "closed", concurrency: 1 };
  for (const l of levels) if (chunksOf(l.load) > chunksOf(top)) top = l.load;
  // A search may reach `to` within its budget, though its planned levels stop where the budget is spent.
  const searched = levelSearch(workload);
  if (searched) {
    const to = levelAt(workload, searchPlan(workload, searched).bounds.to, 1, {
      requestSeconds,
      ...(traces ? { traces } : {}),
    });
    if (chunksOf(to.load) > chunksOf(top)) top = to.load;
  }
  const topLevelChunksPerSecond = chunksOf(top);
  return {
    targetId: target.id,
    scenario,
    label: target.label,
    model: target.model,
    gateway: target.route.gateway,
    apiKeyEnv: target.apiKeyEnv ?? null,
    workload,
    outputTokensPerSecondPerStream: perStream,
    expectedRequestSeconds: requestSeconds,
    levels,
    totalRequests: levels.every((l) => l.requests !== null) ? sum((l) => l.requests ?? 0) : null,
    totalWarmupRequests: sum((l) => l.warmupRequests),
    upperBoundSeconds: sum((l) => l.upperBoundSeconds),
    expectedSeconds: sum((l) => l.expectedSeconds),
    invocationBudgetSeconds: budget,
    upperBound: fitInvocations(
      levels.map((l) => l.upperBoundSeconds),
      budget,
    ),
    expected: fitInvocations(
      levels.map((l) => l.expectedSeconds),
      budget,
    ),
    topLevelLoad: top,
    topLevelChunksPerSecond,
    conversation: conversationPlan(workload),
    clientCoreShare: topLevelChunksPerSecond / CLIENT_CHUNKS_PER_SECOND_PER_THREAD,
    topLevelThreads: threadsForChunkRate(topLevelChunksPerSecond, cores, loadThreadBound(top)),
    cores,
    canary: canary.settings && planCanary(target, workload, canary.settings, perStream, assumptions),
    canaryChoice: canary,
    canarySavedRequests:
      canary.cause === "no-reference" || canary.cause === "alone" ? canaryRequests(DEFAULT_CANARY) : 0,
    toolCalls: toolCallsOf(config.targets ?? [target], target, workload, perStream, assumptions),
    search: levelSearch(workload) ? searchUpperBound(levels, workload, target.pricing) : null,
  };
}

/**
 * A searched sweep's upper bound from its upper-bound levels (`planLevels`): their requests at each
 * one's cap, and never more than the search's budget (`maxRequests`), at which it stops.
 */
function searchUpperBound(levels: LevelPlan[], workload: Workload, pricing: Target["pricing"]): SearchUpperBound {
  const searched = levelSearch(workload);
  const plan = searched ? searchPlan(workload, searched) : null;
  const budget = plan?.budget ?? 0;
  // The levels are planned within the budget already (and the single-stream level outside it).
  const requests = levels.reduce((sum, l) => sum + (l.requests ?? 0) + l.warmupRequests, 0);
  const promptTokens = requests * workload.promptTokens;
  const outputTokens = requests * workload.maxTokens;
  return {
    // The state machine's worst path (and the single-stream level before it); the budget may end a
    // search before it runs them all.
    levels: plan
      ? searchLevelBound(plan.bounds) + (userLevels(workload) !== null && plan.bounds.from > 1 ? 1 : 0)
      : levels.length,
    budget,
    requests,
    promptTokens,
    outputTokens,
    usd: listPriceUsd(pricing, promptTokens, outputTokens),
    upperBoundSeconds: levels.reduce((sum, l) => sum + l.upperBoundSeconds, 0),
  };
}

/**
 * The plan of every (target, scenario) of a config: target by target, each in its scenarios' order;
 * `traces` holds the windows its trace replays send (`loadTraces`).
 */
export function planConfig(
  config: Config,
  assumptions: PlanAssumptions = DEFAULT_PLAN_ASSUMPTIONS,
  traces?: Traces,
): TargetPlan[] {
  const cores = availableParallelism();
  return config.targets.flatMap((target) =>
    scenariosOf(config, target).map((scenario) => planTarget(config, target, assumptions, cores, scenario, traces)),
  );
}

/**
 * The path endings an OpenAI-compatible base URL has, the one list `baseUrlWarning` allows: `/v1` (the
 * OpenAI API and the servers that copy it: vLLM, llama.cpp, Ollama, LiteLLM; and gateways whose path
 * ends in it: OpenRouter's `/api/v1`, Groq's `/openai/v1`, Fireworks' `/inference/v1`), DeepInfra's
 * `/v1/openai` and the Gemini API's `/v1beta/openai`. The client appends `/chat/completions` to it.
 */
export const API_PATH_ENDINGS = ["/v1", "/v1/openai", "/v1beta/openai"] as const;

/**
 * Why a target's `baseURL` likely misses its API (the run would answer 404 and be stored failed): its
 * path does not end in one of `API_PATH_ENDINGS` (a trailing `/` aside); null when it does.
 */
export function baseUrlWarning(target: Pick<Target, "id" | "baseURL">): string | null {
  const path = new URL(target.baseURL).pathname.replace(/\/+$/, "");
  if (API_PATH_ENDINGS.some((ending) => path.endsWith(ending))) return null;
  const [first, ...others] = API_PATH_ENDINGS;
  return `target ${target.id}: baseURL ${target.baseURL} does not end in ${first} (nor ${others.join(" or ")}): requests go to its /chat/completions, which an OpenAI-compatible API does not serve there, so its runs would fail; give the URL up to and including /v1, or the path your provider documents`;
}

/**
 * Which of a route's two numbers a ladder of users will not measure (docs/methodology.md#every-routes-two-numbers):
 * without N = 1, the single-stream figure (what one waiting user gets); with one level only, the
 * concurrent figures (peak, knee, capacity above it). Such a ladder is allowed (a quick check, a
 * client benchmark at one N); `plan` and `run` say what the route will lack. Null when the ladder has
 * both, for a search (it measures N = 1 first), and for kinds without users (an open loop, a replay).
 */
export function missingNumbersWarning(workload: Workload): string | null {
  const users = userLevels(workload);
  if (users === null || users.length === 0) return null;
  const lacks: string[] = [];
  if (!users.includes(1))
    lacks.push(
      `no level at N = 1 (concurrency ${users.join(", ")}): the route will have no single-stream figure, and the site will say "not measured" for it; add 1 to the levels`,
    );
  if (users.length === 1)
    lacks.push(
      `one level only (N = ${users[0]}): the route will have no concurrent figures (peak, knee, capacity above N = ${users[0]}); add a level above it, or search the levels`,
    );
  return lacks.length > 0 ? lacks.join("; ") : null;
}

/** What a workload's closed-loop levels make of `requestsPerLevel`, before anything is sent. */
export interface RequestsPerLevelCheck {
  /** Closed-loop levels (N > 1) at which `requestsPerLevel` is at most N: invalid (`too_few_requests`) whatever the endpoint does. */
  levels: number[];
  /** True when every level is one of them: no valid level can come out, so the sweep should not run. */
  noValidLevel: boolean;
  /** The problem in words (a warning, or the error when `noValidLevel`); null when there is none. */
  message: string | null;
}

/**
 * Checks a closed loop's `requestsPerLevel` against its levels: at N or fewer requests, each of the N
 * workers sends at most one, spread over the level's start, so N are never in flight at once and the
 * level is invalid for its workload (docs/methodology.md). `kneeboard plan` and `kneeboard run` say
 * so before sending: a warning, or an error when no level can be valid.
 */
export function checkRequestsPerLevel(workload: Workload): RequestsPerLevelCheck {
  const perLevel = workload.requestsPerLevel;
  const users = userLevels(workload);
  if (users === null || perLevel === undefined || workload.levelDurationSeconds !== undefined)
    return { levels: [], noValidLevel: false, message: null };
  const levels = users.filter((n) => n > 1 && perLevel >= 1 && perLevel <= n);
  if (levels.length === 0) return { levels, noValidLevel: false, message: null };
  const noValidLevel = levels.length === users.length;
  const message = `requestsPerLevel ${perLevel} is at most N at level${levels.length === 1 ? "" : "s"} ${levels.join(", ")}: each worker sends at most one request, so N are never in flight at once and ${noValidLevel ? "no level can be valid" : levels.length === 1 ? "that level will be invalid" : "those levels will be invalid"} (too_few_requests); set requestsPerLevel above the highest N (say 4 x N), or use levelDurationSeconds`;
  return { levels, noValidLevel, message };
}

/**
 * Whether a search's cap of requests a level (`maxRequestsPerLevel`, default 4 x `requestsPerLevel`)
 * can decide a `meets` under the workload's SLO: it needs the level's ramp and two per-stream groups,
 * and with a TTFT limit the 63 TTFTs (at 0.95) whose largest bounds p95 (`ttftBoundLook`). Below what
 * `from` needs, no level can meet and the search can only end undecided: a problem (plan and run
 * refuse it, exit 2). Below what `to` needs, loads above the highest it can decide cannot meet: a
 * warning. Null for a ladder, or a cap that decides every load.
 */
export function checkSearchCap(workload: Workload): { problem: boolean; message: string } | null {
  const searched = levelSearch(workload);
  if (!searched) return null;
  const plan = searchPlan(workload, searched);
  // Whole loads are users (a closed loop's N: its ramp and groups); a rate has neither.
  const whole = plan.bounds.whole;
  const users = (load: number) => (whole ? load : null);
  const needs = (load: number) => {
    const n = users(load);
    const speed = Math.max(minimumRequests(n), n === null ? 20 : 0);
    return workload.slo.maxTtftMs === null
      ? speed
      : Math.max(speed, ttftBoundLook(plan.confidence, groupSize(n), rampOf(n)));
  };
  const { from, to } = plan.bounds;
  if (plan.cap >= needs(to)) return null;
  const why =
    workload.slo.maxTtftMs === null
      ? "its ramp and two per-stream groups"
      : `its ramp and the TTFTs whose largest bounds p95 at confidence ${plan.confidence}, under the TTFT limit of ${workload.slo.maxTtftMs} ms`;
  const cap = `the search's cap of ${plan.cap} measured requests a level (maxRequestsPerLevel, default 4 x requestsPerLevel ${plan.batch})`;
  const raise = (need: number) =>
    `raise requestsPerLevel to ${Math.ceil(need / 4)} or maxRequestsPerLevel to ${need}${workload.slo.maxTtftMs === null ? "" : ", or set slo.maxTtftMs to null to judge speed alone"}`;
  if (plan.cap < needs(from))
    return {
      problem: true,
      message: `${cap} cannot decide a level at from (${from}): a "meets" there needs ${needs(from)} (${why}), so every level would end missed or undecided; ${raise(needs(from))}`,
    };
  let highest = from;
  const step = (load: number) => (whole ? load + 1 : load * 1.01);
  while (highest < to && plan.cap >= needs(step(highest))) highest = step(highest);
  return {
    problem: false,
    message: `${cap} can call a level met only up to about ${Number(highest.toPrecision(3))}: at to (${to}) a "meets" needs ${needs(to)} (${why}); above that the search can only miss or stay undecided; ${raise(needs(to))}`,
  };
}

/**
 * Whether a search's budget (`maxRequests`, default the doubling ladder's spend over its range) pays
 * for the TTFT p95 bound at its capacity's probe under the workload's TTFT limit: the least the search
 * spends before that probe has bounded TTFT (`ttftBoundSpends`: its state machine on the cheapest
 * monotone route of each capacity, each level at its first look, the probe at its ramp and the TTFTs
 * whose largest bounds p95). Where the budget pays for the same path decided on speed alone but not
 * with the bound, the TTFT limit is what the budget cannot pay: the capacity's probe would end
 * undecided on what is left, and capacity with it. A warning naming what to raise; null for a ladder,
 * no TTFT limit, or a budget that pays.
 */
export function checkSearchBudget(workload: Workload): string | null {
  const searched = levelSearch(workload);
  if (!searched || workload.slo.maxTtftMs === null) return null;
  const plan = searchPlan(workload, searched);
  const users = (load: number) => (plan.bounds.whole ? load : null);
  const warm = workload.warmupRequests;
  // The least a judged level draws (its ramp and two groups; an open loop's 20 it is valid with), within the cap.
  const speed = (load: number) =>
    Math.min(plan.cap, Math.max(minimumRequests(users(load)), users(load) === null ? MIN_OPEN_LOOP_REQUESTS : 0));
  const ttft = (load: number) =>
    Math.min(
      plan.cap,
      Math.max(speed(load), ttftBoundLook(plan.confidence, groupSize(users(load)), rampOf(users(load)))),
    );
  // A closed loop's look is reached with the other N - 1 users' requests in flight: they end, and are sent.
  const decided = (load: number, look: number) => warm + Math.min(plan.cap, look + (users(load) ?? 1) - 1);
  const spends = ttftBoundSpends(plan.bounds, {
    meets: (load, bound) => decided(load, bound ? ttft(load) : speed(load)),
    misses: (load) => decided(load, speed(load)),
    notJudged: (load) => warm + Math.min(plan.cap, Math.max(2 * (users(load) ?? 0), Math.ceil(1 / MAX_FAILURE_RATE))),
  });
  const shortAt = (budget: number) => spends.filter((s) => s.withoutBound <= budget && s.spend > budget);
  const short = shortAt(plan.budget);
  if (short.length === 0) return null;
  // What to raise it to: the least budget at which no capacity it pays a speed decision for lacks the bound
  // (a larger budget reaches capacities its old one could not pay a speed decision for either).
  const enough = [...new Set(spends.map((s) => s.spend))]
    .filter((b) => b > plan.budget)
    .sort((a, b) => a - b)
    .find((b) => shortAt(b).length === 0);
  const figure = (x: number) => Number(x.toPrecision(3));
  const worst = short.reduce((a, b) => (b.spend > a.spend ? b : a));
  const capacities = short.map((s) => figure(s.capacity));
  const at =
    capacities.length === 1
      ? `a capacity of ${capacities[0]}`
      : capacities.length <= 6
        ? `a capacity of ${capacities.slice(0, -1).join(", ")} or ${capacities.at(-1)}`
        : `${capacities.length} capacities between ${capacities[0]} and ${capacities.at(-1)}`;
  const budget = `the search's budget of ${plan.budget} requests (maxRequests${searched.settings.maxRequests === undefined ? `, by default the doubling ladder's over ${plan.bounds.from}..${plan.bounds.to}` : ""})`;
  return `${budget} cannot pay for the TTFT p95 bound at the capacity's probe for ${at}: at ${figure(worst.capacity)} the search spends at least ${worst.spend} requests, warm-ups included, before that probe has bounded TTFT p95 under the limit of ${workload.slo.maxTtftMs} ms (${worst.withoutBound} deciding it on speed alone), so that probe would end undecided on what is left of the budget, and capacity with it; raise maxRequests to at least ${enough}, or set slo.maxTtftMs to null to judge speed alone`;
}

/** Where a search's settings sit in the config, by its axis. */
const SEARCH_PATHS = { concurrency: "concurrency", rate: "arrival.ratesPerSecond" } as const;

/** What `plan` and `run` find in the chosen targets' sweeps before anything is sent. */
export interface SweepChecks {
  /** Sweeps none of whose levels can be valid: the config is refused (exit 2). */
  problems: ConfigProblem[];
  /** Levels that will be invalid, and base URLs that likely miss their API: said, then the sweep runs. */
  warnings: string[];
}

/**
 * Checks each (target, scenario) of `targets`: a closed loop's `requestsPerLevel` at most N
 * (`checkRequestsPerLevel`, a problem when no level can be valid), a ladder that will lack one of the
 * route's two numbers (`missingNumbersWarning`) and a `baseURL` that likely misses its API (`baseUrlWarning`).
 */
export function checkSweeps(config: Pick<Config, "workload" | "scenarios">, targets: Target[]): SweepChecks {
  const problems: ConfigProblem[] = [];
  const warnings = targets.flatMap((target) => baseUrlWarning(target) ?? []);
  for (const target of targets)
    for (const scenario of scenariosOf(config, target)) {
      const workload = workloadFor(config, target, scenario);
      const cap = checkSearchCap(workload);
      if (cap) {
        const axis = SEARCH_PATHS[levelSearch(workload)?.axis ?? "concurrency"];
        const path = `workload.${axis}.search.maxRequestsPerLevel (target ${target.id}, scenario ${scenario})`;
        if (cap.problem) problems.push({ path, message: cap.message });
        else warnings.push(`${path}: ${cap.message}`);
      }
      const budget = checkSearchBudget(workload);
      if (budget) {
        const axis = SEARCH_PATHS[levelSearch(workload)?.axis ?? "concurrency"];
        warnings.push(`workload.${axis}.search.maxRequests (target ${target.id}, scenario ${scenario}): ${budget}`);
      }
      const lacks = missingNumbersWarning(workload);
      if (lacks !== null) warnings.push(`workload.concurrency (target ${target.id}, scenario ${scenario}): ${lacks}`);
      const check = checkRequestsPerLevel(workload);
      if (check.message === null) continue;
      const path = `workload.requestsPerLevel (target ${target.id}, scenario ${scenario})`;
      if (check.noValidLevel) problems.push({ path, message: check.message });
      else warnings.push(`${path}: ${check.message}`);
    }
  return { problems, warnings };
}
