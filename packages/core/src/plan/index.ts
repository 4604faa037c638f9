/**
 * @module What a sweep will do, worked out from the config alone (no request is sent): levels,
 * requests, an upper bound and an expected figure for its duration, how many Lambda invocations it
 * takes, and the chunk rate its top level asks of the client.
 */
import { availableParallelism } from "node:os";
import {
  type CanaryChoice,
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
import type { ConversationPlan } from "../kinds/conversation/index.ts";
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
import { SAME_MODEL_MIN_SAMPLES } from "../same-model/index.ts";
import { CANARY_PROMPTS } from "../same-model/prompts.ts";
import { doublingLadder, searchLevelBound, searchPlan } from "../search/bounds.ts";
import { groupSize, minimumRequests, rampOf, ttftBoundLook } from "../search/decide.ts";
import { TOOL_SUITE, type ToolSuite } from "../tool-calls/suite.ts";
import type { Traces } from "../trace/index.ts";

export type { ConversationPlan } from "../kinds/conversation/index.ts";
export type { OpenArrival } from "../kinds/open/index.ts";
export { openLoopChunksPerSecond } from "../kinds/open/index.ts";
export { conversationPlan, type LevelLoad, type LevelPlan, loadChunksPerSecond, loadThreadBound };

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

/** Lambda's longest invocation, seconds. */
export const LAMBDA_INVOCATION_SECONDS = 900;

/** The deployed sweep stops this long before its invocation ends so the finished levels are saved, seconds. */
export const LAMBDA_DEADLINE_MARGIN_SECONDS = 30;

/**
 * Invocations one deployed run may use (the first and its continuations) before it is stored partial;
 * the functions' `KNEEBOARD_SWEEP_MAX_INVOCATIONS` overrides it.
 */
export const DEFAULT_MAX_INVOCATIONS = 4;

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

/** How a sweep of a given duration fits into Lambda invocations of `invocationBudgetSeconds` each. */
export interface InvocationFit {
  /** Invocations needed: levels run in order, a level that does not fit in what is left starts the next one. */
  invocations: number;
  /** Follow-up messages after the first invocation (`invocations - 1`). */
  continuations: number;
  /** Levels that cannot finish even in a fresh invocation: the run would end partial before them. */
  oversizedLevels: number[];
}

/** What a sweep's canary phase will cost (docs/config.md#canary): requests, tokens, dollars, time. */
export interface CanaryPlan {
  settings: CanarySettings;
  /** Canary prompts x samplesPerPrompt. */
  requests: number;
  /** Prompt tokens, estimated at 4 characters a token plus 8 for a chat template, over every request. */
  promptTokens: number;
  /** Output tokens at most: every completion reaching maxTokens. */
  outputTokens: number;
  /** USD at the target's list prices (prompt and output tokens above); null without list prices (none, or hourly). */
  usd: number | null;
  /** The phase at the assumed rates: ceil(requests / concurrency) rounds of one request, seconds. */
  expectedSeconds: number;
  /** Every request running to its timeout, seconds. */
  upperBoundSeconds: number;
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

/** The tool-call phase of a sweep, as planned (`planToolCalls`). */
export interface ToolCallsPlan {
  settings: ToolCallSettings;
  /** The suite asked (`tools-v2`) and its prompts. */
  suite: string;
  prompts: number;
  /** The suite's prompts x samplesPerPrompt. */
  requests: number;
  /**
   * Why the route's tool calls cannot be judged against a reference route, in words; null when they
   * can (or the route is the reference). The phase still runs: its shares are measured.
   */
  unjudged: string | null;
  /**
   * Prompt tokens over every request, estimated at 4 characters a token of the messages, the tools'
   * definitions (or the response schema) as sent, plus 8 for a chat template.
   */
  promptTokens: number;
  /** Output tokens at most: every answer reaching maxTokens. */
  outputTokens: number;
  /** USD at the target's list prices; null without list prices (none, or hourly). */
  usd: number | null;
  /** ceil(requests / concurrency) rounds of one request at the assumed rates, seconds. */
  expectedSeconds: number;
  /** Every request running to its timeout, seconds. */
  upperBoundSeconds: number;
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

/** What `kneeboard plan` reports for one (target, scenario). */
export interface TargetPlan {
  targetId: string;
  scenario: string;
  label: string;
  model: string;
  gateway: Target["route"]["gateway"];
  apiKeyEnv: string | null;
  workload: Workload;
  /** The per-stream rate the expected figures assume: the target's `expectedOutputTokensPerSecond`, else the default. */
  outputTokensPerSecondPerStream: number;
  /** One request's expected duration at the assumed rates (TTFT, then maxTokens), seconds. */
  expectedRequestSeconds: number;
  levels: LevelPlan[];
  /** Measured requests over all levels; null when any level runs for a fixed time. */
  totalRequests: number | null;
  totalWarmupRequests: number;
  upperBoundSeconds: number;
  expectedSeconds: number;
  /** Seconds one invocation sweeps before it stops to save: 900 less the 30 s margin. */
  invocationBudgetSeconds: number;
  upperBound: InvocationFit;
  expected: InvocationFit;
  /** The busiest level's load: a ladder's last level, a search's top doubling step. */
  topLevelLoad: LevelLoad;
  /** Chunks per second the top level asks of the client at the assumed rate. */
  topLevelChunksPerSecond: number;
  /** topLevelChunksPerSecond / CLIENT_CHUNKS_PER_SECOND_PER_THREAD. */
  clientCoreShare: number;
  /** A conversation's tokens turn by turn and in all; null without one. */
  conversation: ConversationPlan | null;
  /** Worker threads a sweep with `threads: "auto"` would run the top level on, on `cores` cores. */
  topLevelThreads: number;
  /** The cores that thread count assumed (the planning machine's available parallelism by default). */
  cores: number;
  /** A searched sweep's upper bound (its `levels` are the most it can run, each at its cap); null for a ladder. */
  search: SearchUpperBound | null;
  /** The canary phase after the levels; null when off. Its time is not in the levels' durations above. */
  canary: CanaryPlan | null;
  /** Why the canary is on or off (`canaryChoice`: a layer set it, or the model's routes decided) and the model key. */
  canaryChoice: CanaryChoice;
  /** Requests a run saves by the canary being off by default (no verdict could come of it): the default canary's; else 0. */
  canarySavedRequests: number;
  /** The tool-call phase after the canary; null when off (`workload.toolCalls`). Its time is not in the levels' durations. */
  toolCalls: ToolCallsPlan | null;
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

/** Packs level durations, in order, into invocations of budgetSeconds each. */
export function fitInvocations(levelSeconds: number[], budgetSeconds: number): InvocationFit {
  let invocations = 1;
  let used = 0;
  const oversizedLevels: number[] = [];
  levelSeconds.forEach((seconds, i) => {
    if (seconds > budgetSeconds) {
      oversizedLevels.push(i);
      return;
    }
    if (used + seconds > budgetSeconds) {
      invocations++;
      used = 0;
    }
    used += seconds;
  });
  return { invocations, continuations: invocations - 1, oversizedLevels };
}

/** The most a searched sweep can cost: every level it may run, each drawing its cap of requests. */
export interface SearchUpperBound {
  levels: number;
  /** The search's budget, warm-ups included (`maxRequests`; default the doubling ladder's requests): it never sends more. */
  budget: number;
  /** Requests at most, warm-ups included. */
  requests: number;
  promptTokens: number;
  /** Output tokens at most (every request to maxTokens). */
  outputTokens: number;
  /** At the target's list prices; null without them (or with hourly pricing, whose cost is its time). */
  usd: number | null;
  upperBoundSeconds: number;
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

/** Lambda memory that gives one full vCPU, MB; CPU grows in proportion to memory. */
export const LAMBDA_MB_PER_VCPU = 1769;
/** Lambda's largest memory, MB (about 6 vCPUs). */
export const LAMBDA_MAX_MB = 10_240;

/**
 * The sweep Lambda's memory for a config's plans: a full vCPU for each core of client the busiest top
 * level is expected to need (its chunk rate over CLIENT_CHUNKS_PER_SECOND_PER_THREAD, rounded up), at
 * least one, at most Lambda's largest. A level over what that carries is flagged client.limited.
 */
export function sweepMemoryMb(plans: Pick<TargetPlan, "clientCoreShare">[]): number {
  const cores = Math.max(1, ...plans.map((p) => Math.ceil(p.clientCoreShare)));
  return Math.min(LAMBDA_MAX_MB, cores * LAMBDA_MB_PER_VCPU);
}

/** Lambda's price (x86_64, us-east-1): per GB-second of compute, per request. */
export const LAMBDA_USD_PER_GB_SECOND = 0.0000166667;
export const LAMBDA_USD_PER_REQUEST = 0.2 / 1_000_000;
/** The publish function's memory, MB (sst.config.ts). */
export const PUBLISH_MEMORY_MB = 2048;
/** Sweeps one publish covers: its queue batches up to 10 messages. */
const SWEEPS_PER_PUBLISH = 10;

/** Schedule slots a day: a `rate(...)` exactly; null for a `cron(...)`, which this does not count. */
export function slotsPerDay(schedule: string): number | null {
  const rate = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(schedule);
  if (!rate) return null;
  const minutes = Number(rate[1]) * { minute: 1, hour: 60, day: 1440 }[rate[2] as "minute" | "hour" | "day"];
  return 1440 / minutes;
}

/** What the deployed Lambdas cost a day for a config's plans: the one computation every figure quotes. */
export interface LambdaCost {
  slotsPerDay: number;
  sweepMemoryMb: number;
  /** Sweep and publish compute, GB-seconds a day. */
  gbSecondsPerDay: number;
  invocationsPerDay: number;
  usdPerDay: number;
}

/**
 * Lambda's charges a day at the expected sweep durations (each sweep's GB-s at the sweep memory, its
 * canary phase included, its continuations as extra invocations) plus publish (one per 10 sweeps, 5 s + 0.15 s per target as
 * measured by `npm run bench`, at PUBLISH_MEMORY_MB) and the plan function, on x86_64 prices in
 * us-east-1. Providers' tokens, S3, SQS, DynamoDB, SNS and CloudFront are not in it. Null for a cron schedule.
 */
export function lambdaCostPerDay(plans: TargetPlan[], schedule: string, targets: number): LambdaCost | null {
  const slots = slotsPerDay(schedule);
  if (slots === null) return null;
  const memoryMb = sweepMemoryMb(plans);
  // The canary phase runs in the sweep's last invocation: its time is the sweep's too.
  const sweepSeconds = plans.reduce((sum, p) => sum + p.expectedSeconds + (p.canary?.expectedSeconds ?? 0), 0);
  const sweepInvocations = plans.reduce((sum, p) => sum + p.expected.invocations, 0);
  const publishes = Math.ceil(plans.length / SWEEPS_PER_PUBLISH);
  const publishSeconds = publishes * (5 + 0.15 * targets);
  const gbSeconds = slots * (sweepSeconds * (memoryMb / 1024) + publishSeconds * (PUBLISH_MEMORY_MB / 1024));
  const invocations = slots * (1 + sweepInvocations + publishes);
  return {
    slotsPerDay: slots,
    sweepMemoryMb: memoryMb,
    gbSecondsPerDay: gbSeconds,
    invocationsPerDay: invocations,
    usdPerDay: gbSeconds * LAMBDA_USD_PER_GB_SECOND + invocations * LAMBDA_USD_PER_REQUEST,
  };
}

/** AWS's other prices (us-east-1, on demand): S3 requests, DynamoDB request units, CloudFront invalidation paths. */
export const S3_USD_PER_PUT = 0.005 / 1000;
export const S3_USD_PER_GET = 0.0004 / 1000;
export const DYNAMO_USD_PER_WRITE_UNIT = 0.625 / 1_000_000;
export const DYNAMO_USD_PER_READ_UNIT = 0.125 / 1_000_000;
export const CLOUDFRONT_USD_PER_PATH = 0.005;
/** Invalidation paths a month CloudFront does not charge for. */
export const CLOUDFRONT_FREE_PATHS_PER_MONTH = 1000;
/** An index entry's size, KB (a closed-loop run of 6 levels, as `npm run bench` generates): what its write and each read cost. */
export const INDEX_ENTRY_KB = 5;
/** Files a publish after sweeps uploads besides their run documents: the catalogue benchmark's 71 pages, the downloads, the feeds. */
export const FILES_PER_PUBLISH = 80;
/** The history the index holds when the estimate is taken, days: publish reads all of it, so reads grow with it. */
export const HISTORY_DAYS = 30;

/** What a deployment of `routes` routes like a config's costs a day, by service (USD), and the output tokens its sweeps ask for. */
export interface ScaleCost {
  routes: number;
  lambda: number;
  s3: number;
  dynamodb: number;
  cloudfront: number;
  usdPerDay: number;
  /** Output tokens a day at most (every measured request at `maxTokens`); the providers bill them. */
  outputTokensPerDay: number;
}

/**
 * The daily cost of `routes` routes, each like one of the config's targets in turn (its scenarios and
 * workloads), after `HISTORY_DAYS` of history: Lambda (`lambdaCostPerDay`); S3 (each run's document
 * and a save per level, each publish's uploads, its reads of the newest document of every series);
 * DynamoDB (each run's index entry written once; each publish reads the whole index twice, for the
 * regression check and the build); CloudFront (one invalidation path a publish, past the free 1,000
 * a month). Null for a cron schedule.
 */
export function costAtScale(plans: TargetPlan[], schedule: string, routes: number): ScaleCost | null {
  const slots = slotsPerDay(schedule);
  if (slots === null) return null;
  const groups = new Map<string, TargetPlan[]>();
  for (const p of plans) groups.set(p.targetId, [...(groups.get(p.targetId) ?? []), p]);
  const byTarget = [...groups.values()];
  const scaled = Array.from({ length: routes }, (_, i) => byTarget[i % byTarget.length] ?? []).flat();
  const lambda = lambdaCostPerDay(scaled, schedule, routes);
  if (lambda === null) return null;
  const runs = slots * scaled.length;
  const publishes = slots * Math.ceil(scaled.length / SWEEPS_PER_PUBLISH);
  const levelSaves = slots * scaled.reduce((sum, p) => sum + p.levels.length, 0);
  const puts = 2 * runs + levelSaves + publishes * (FILES_PER_PUBLISH + 2);
  const gets = publishes * (scaled.length + 2);
  const s3 = puts * S3_USD_PER_PUT + gets * S3_USD_PER_GET;
  // A query reads 4 KB per half unit (eventually consistent); the index holds every run of the history.
  const indexKb = runs * HISTORY_DAYS * INDEX_ENTRY_KB;
  const reads = publishes * 2 * (indexKb / 4) * 0.5;
  const dynamodb = runs * Math.ceil(INDEX_ENTRY_KB) * DYNAMO_USD_PER_WRITE_UNIT + reads * DYNAMO_USD_PER_READ_UNIT;
  const paidPaths = Math.max(0, publishes * 30 - CLOUDFRONT_FREE_PATHS_PER_MONTH) / 30;
  const cloudfront = paidPaths * CLOUDFRONT_USD_PER_PATH;
  const outputTokensPerDay = slots * scaled.reduce((sum, p) => sum + (p.totalRequests ?? 0) * p.workload.maxTokens, 0);
  return {
    routes,
    lambda: lambda.usdPerDay,
    s3,
    dynamodb,
    cloudfront,
    usdPerDay: lambda.usdPerDay + s3 + dynamodb + cloudfront,
    outputTokensPerDay,
  };
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
