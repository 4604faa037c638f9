/**
 * @module What `kneeboard plan` reports for one (target, scenario) and its phases, in its own file so
 * the cost model (./cost.ts) reads a plan without importing the planning.
 */
import type { CanaryChoice, CanarySettings, Target, ToolCallSettings, Workload } from "../config/index.ts";
import type { ConversationPlan } from "../kinds/conversation/index.ts";
import type { LevelLoad, LevelPlan } from "../kinds/index.ts";
import type { InvocationFit } from "./invocations.ts";

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
