/**
 * @module The config file's schema (docs/config.md): targets, the workload, the schedule, with the
 * checks across fields. Schemas and types share names.
 */
import { z } from "zod";
import { Positive, strictlyAscending } from "../drive/fields.ts";
import { type LevelSearch, levelSearchSchema } from "../drive/search.ts";
import { Arrival, Conversation, DEFAULT_ARRIVAL, layerProblems, TraceFormat } from "../kinds/index.ts";
import { DEFAULT_SLO } from "../metrics/index.ts";
import { isLocalOnly, Route } from "../route/index.ts";
import { ALWAYS, isObject, problem, targetsOf } from "./refine.ts";

const Name = z.string().min(1).max(200);

/** A target's route lives in route/, below the client that follows it; re-exported as part of the config. */
export { Route };

/** What one interactive user needs; either figure may be set alone, the other keeps its default. */
export const Slo = z.strictObject({
  /** Least per-stream output tok/s a user accepts. */
  minOutputTokensPerSecond: Positive.meta({
    description: "Per-stream output tokens per second (p50) a level must reach, tok/s, positive. Default 20.",
  }),
  /** Longest TTFT p95 a user accepts, ms; null sets no TTFT limit. */
  maxTtftMs: Positive.nullable().meta({
    description:
      "Time to first token (p95) a level must stay under, ms, positive; null sets no TTFT limit (the SLO is per-stream speed alone, and a searched level needs no samples to bound TTFT p95). Default 2000.",
  }),
});
export type Slo = z.infer<typeof Slo>;

/** How requests arrive: each member is a load kind's (kinds/index.ts). */
export { Arrival, DEFAULT_SLO, TraceFormat };

/** The canary phase's own settings (docs/config.md#canary); each defaults as `DEFAULT_CANARY`. */
export const CanaryOverride = z.strictObject({
  /** Completions asked per canary prompt. */
  samplesPerPrompt: z
    .number()
    .int()
    .positive()
    .max(100)
    .meta({ description: "Completions asked per canary prompt, a whole number from 1 to 100. Default 10." }),
  /** max_tokens of each canary request. */
  maxTokens: z
    .number()
    .int()
    .positive()
    .max(1024)
    .meta({ description: "max_tokens of each canary request, tokens, a whole number from 1 to 1024. Default 32." }),
  /** Canary requests in flight at once. */
  concurrency: z
    .number()
    .int()
    .positive()
    .max(64)
    .meta({ description: "Canary requests in flight at once, a whole number from 1 to 64. Default 4." }),
});
export type CanaryOverride = z.infer<typeof CanaryOverride>;

/** The canary of a run: the fixed prompts, each sampled `samplesPerPrompt` times at temperature 1. */
export interface CanarySettings {
  samplesPerPrompt: number;
  maxTokens: number;
  concurrency: number;
  /** Always 1: the test compares the models' own distributions. */
  temperature: number;
}

/** The canary a workload runs by default: 10 completions of each prompt, 32 tokens each, 4 at once. */
export const DEFAULT_CANARY: CanarySettings = { samplesPerPrompt: 10, maxTokens: 32, concurrency: 4, temperature: 1 };

/**
 * Why a (target, scenario) runs the canary or not (docs/config.md#canary). `set`: a layer of its
 * workload sets `canary`, and the nearest one decides (`false` off; `true` or an object on, with or
 * without a reference route). Otherwise the model's routes in the config decide, since a canary is
 * paid for and only a verdict against a reference makes it worth it: `judged` (on: the model has a
 * reference route and at least one other route, the reference being the other side of each test),
 * `no-reference` (off: no route of the model is `reference: true`, so every verdict would be
 * `no-reference`), `alone` (off: the target is its model's reference and its only route).
 */
export type CanaryCause = "set" | "judged" | "no-reference" | "alone";

/** What `canaryChoice` decides for a (target, scenario). */
export interface CanaryChoice {
  /** The canary the sweep runs; null when off. */
  settings: CanarySettings | null;
  cause: CanaryCause;
  /** The target's model key (`modelKeyOf`), whose routes the default went by. */
  modelKey: string;
}

/** What `canaryChoice` reads of a target: its id, its model and whether it is the reference. */
export type CanaryRoute = Pick<Target, "id" | "model" | "modelKey" | "reference">;

/**
 * The one decision whether a (target, scenario) runs the canary, and with which settings: its
 * workload's `canary` when a layer sets it, else on only where a verdict can come of it (`CanaryCause`).
 * `targets` are the config's, the target among them: its model's other routes are those sharing its
 * model key. Every reader (the sweeps, `plan`) asks this, through `canaryFor` or directly.
 */
export function canaryChoice(
  targets: readonly CanaryRoute[],
  target: CanaryRoute,
  workload: Pick<Workload, "canary">,
): CanaryChoice {
  const modelKey = modelKeyOf(target);
  const c = workload.canary;
  if (c !== undefined)
    return {
      settings: c === false ? null : { ...DEFAULT_CANARY, ...(typeof c === "object" ? c : {}) },
      cause: "set",
      modelKey,
    };
  const others = targets.filter((t) => t.id !== target.id && modelKeyOf(t) === modelKey);
  const cause =
    target.reference !== true && !others.some((t) => t.reference === true)
      ? "no-reference"
      : others.length === 0
        ? "alone"
        : "judged";
  return { settings: cause === "judged" ? { ...DEFAULT_CANARY } : null, cause, modelKey };
}

/** The canary a (target, scenario) runs, or null when it is off: `canaryChoice`'s settings. */
export function canaryFor(
  targets: readonly CanaryRoute[],
  target: CanaryRoute,
  workload: Pick<Workload, "canary">,
): CanarySettings | null {
  return canaryChoice(targets, target, workload).settings;
}

/** The tool-call phase's own settings (docs/config.md#toolcalls); each defaults as `DEFAULT_TOOL_CALLS`. */
export const ToolCallsOverride = z.strictObject({
  /** Answers asked per prompt of the suite. */
  samplesPerPrompt: z
    .number()
    .int()
    .positive()
    .max(100)
    .meta({ description: "Answers asked per tool-call prompt, a whole number from 1 to 100. Default 4." }),
  /** Tool-call requests in flight at once. */
  concurrency: z
    .number()
    .int()
    .positive()
    .max(64)
    .meta({ description: "Tool-call requests in flight at once, a whole number from 1 to 64. Default 4." }),
});
export type ToolCallsOverride = z.infer<typeof ToolCallsOverride>;

/** The tool-call phase of a run: each prompt of the suite asked `samplesPerPrompt` times. */
export interface ToolCallSettings {
  samplesPerPrompt: number;
  concurrency: number;
  /** Always 0: the measure is whether the route's most likely answer works. */
  temperature: number;
  /** max_tokens of each request: room for two calls' arguments or a structured answer. */
  maxTokens: number;
}

/** The tool-call phase a workload runs when it is on: 4 answers per prompt, 4 at once, temperature 0, 256 tokens. */
export const DEFAULT_TOOL_CALLS: ToolCallSettings = {
  samplesPerPrompt: 4,
  concurrency: 4,
  temperature: 0,
  maxTokens: 256,
};

/** The tool-call phase a workload runs, or null when it is off (the default: operators opt in). */
export function toolCallsFor(workload: Pick<Workload, "toolCalls">): ToolCallSettings | null {
  const t = workload.toolCalls;
  if (t === undefined || t === false) return null;
  return { ...DEFAULT_TOOL_CALLS, ...(typeof t === "object" ? t : {}) };
}

/** Conversations (docs/config.md#conversation): the conversation kind's config member. */
export { Conversation };

const workloadFields = {
  /** Concurrency levels, strictly ascending. */
  concurrency: z
    .union(
      [
        z.array(z.number().int().positive().max(1024)).min(1).superRefine(strictlyAscending("levels")),
        levelSearchSchema(true, "users (N)", 1024),
      ],
      { error: 'must be a list of levels [1, 2, 4, ...] or { "search": { "from", "to", "resolution" } }' },
    )
    .meta({
      description:
        'The levels of the sweep, run low to high: N, the requests kept in flight, whole numbers from 1 to 1024, strictly ascending; or { "search": { from, to, resolution } }, levels the sweep finds itself (docs/config.md#searched-levels). Default [1, 2, 4, 8, 16, 32].',
    }),
  /** Approximate prompt size in tokens. */
  promptTokens: z.number().int().positive().meta({
    description:
      "Approximate prompt size, tokens, a positive whole number (the real size is taken from the response's usage). Default 150.",
  }),
  /** max_tokens of each request. */
  maxTokens: z
    .number()
    .int()
    .positive()
    .meta({ description: "max_tokens of each request, tokens, a positive whole number. Default 128." }),
  /** Measured requests per level (closed loop); or use levelDurationSeconds. */
  requestsPerLevel: z.number().int().positive().meta({
    description:
      "Measured requests per level, a positive whole number; set it or levelDurationSeconds, not both. Default 64.",
  }),
  /** Closed loop for a fixed time per level instead of a request count, seconds. */
  levelDurationSeconds: z.number().positive().meta({
    description:
      "Run each level for this long instead of a request count, seconds, positive; set it or requestsPerLevel, not both. Default none (requestsPerLevel).",
  }),
  /** Unmeasured requests before each level. */
  warmupRequests: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: "Unmeasured requests before each level, a whole number, 0 or more. Default 1." }),
  /** Sampling temperature, 0..2. */
  temperature: z
    .number()
    .min(0)
    .max(2)
    .meta({ description: "Sampling temperature of each request, 0 to 2. Default 0." }),
  /** Per-request timeout, seconds. */
  requestTimeoutSeconds: z.number().positive().max(900).meta({
    description:
      "A request still running after this long is recorded as timeout, seconds, positive, at most 900. Default 120.",
  }),
  /** A streaming response with no byte for this long ends as `timeout` (the stream went idle), seconds. */
  streamIdleTimeoutSeconds: z.number().positive().max(900).meta({
    description:
      "A streaming response with no byte for this long (after its head) ends as timeout, the stream gone idle, seconds, positive, at most 900. Default 30.",
  }),
  /** Sent as ignore_eos so every request generates maxTokens (vLLM, llama.cpp). */
  ignoreEos: z.boolean().meta({
    description:
      "true sends ignore_eos: true, so servers that honour it (vLLM, llama.cpp's llama-server) generate exactly maxTokens every time; OpenRouter and Ollama do not honour it. Default false.",
  }),
  /** What one user needs (defines capacity and goodput); fields default to `DEFAULT_SLO`. */
  slo: Slo.partial().meta({
    description:
      "What one interactive user needs: it defines each level's meetsSlo, goodput and the run's capacity; either figure may be set alone. Default { minOutputTokensPerSecond: 20, maxTtftMs: 2000 }.",
  }),
  /** How requests arrive (default a closed loop). */
  arrival: Arrival.meta({
    description:
      'How requests arrive: { mode: "closed" }, N in flight (the levels of concurrency); { mode: "poisson" | "gamma", ratesPerSecond }, an open loop whose levels are request rates; { mode: "trace", file, format }, a recorded trace\'s replay whose levels are speedups. Default { mode: "closed" }.',
  }),
  /** The canary phase after the levels (the same-model test's samples); by default on where it can judge (`canaryChoice`). */
  canary: z
    .union([z.boolean(), CanaryOverride.partial()], {
      error: "must be true, false or { samplesPerPrompt?, maxTokens?, concurrency? }",
    })
    .meta({
      description:
        "The canary phase after the levels, the same-model test's samples: true, false (off), or an object of its settings (on, with those). The nearest layer that sets it decides. Default on for the routes of a model with a reference route and another route (10 completions of each prompt, 32 tokens each, 4 at once), else off.",
    }),
  /** The tool-call phase after the levels and the canary (docs/config.md#toolcalls); off by default. */
  toolCalls: z
    .union([z.boolean(), ToolCallsOverride.partial()], {
      error: "must be true, false or { samplesPerPrompt?, concurrency? }",
    })
    .meta({
      description:
        "The tool-call phase after the levels and the canary: does the route work for agents (tool calls and structured output). true (on, 4 answers per prompt, 4 at once), false (off), or an object of its settings (on, with those). The nearest layer that sets it decides. Default false.",
    }),
  /** Closed loop only: each worker holds conversations of several turns instead of single prompts (default none). */
  conversation: Conversation.meta({
    description:
      "Closed loop only: each worker is one user holding conversations of several turns, re-sending the history each turn, instead of sending single prompts. Default none (single prompts).",
  }),
};

/** A per-target workload: any field overrides the global one; a count or a duration, not both. */
export const WorkloadOverride = z
  .strictObject(workloadFields)
  .partial()
  .superRefine((workload, ctx) => {
    const { requestsPerLevel, levelDurationSeconds } = workload ?? {};
    if (requestsPerLevel !== undefined && levelDurationSeconds !== undefined)
      problem(ctx, ["levelDurationSeconds"], "set requestsPerLevel or levelDurationSeconds, not both");
  }, ALWAYS);
export type WorkloadOverride = z.infer<typeof WorkloadOverride>;

/** The effective workload of a target. Exactly one of requestsPerLevel / levelDurationSeconds is set. */
export type Workload = Omit<
  z.infer<typeof WorkloadOverride>,
  | "concurrency"
  | "promptTokens"
  | "maxTokens"
  | "warmupRequests"
  | "temperature"
  | "requestTimeoutSeconds"
  | "streamIdleTimeoutSeconds"
  | "ignoreEos"
  | "slo"
  | "arrival"
> & {
  concurrency: number[] | LevelSearch;
  promptTokens: number;
  maxTokens: number;
  warmupRequests: number;
  temperature: number;
  requestTimeoutSeconds: number;
  streamIdleTimeoutSeconds: number;
  ignoreEos: boolean;
  slo: Slo;
  arrival: Arrival;
};

export const DEFAULT_WORKLOAD = {
  concurrency: [1, 2, 4, 8, 16, 32],
  promptTokens: 150,
  maxTokens: 128,
  requestsPerLevel: 64,
  warmupRequests: 1,
  temperature: 0,
  requestTimeoutSeconds: 120,
  streamIdleTimeoutSeconds: 30,
  ignoreEos: false,
  slo: DEFAULT_SLO,
  arrival: DEFAULT_ARRIVAL,
} satisfies Workload;

/** A slug: lowercase letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const SLUG = /^[a-z0-9][a-z0-9._-]*$/;

/** A target's declared price: list prices of an API route, or a dedicated endpoint billed by the hour. */
export const Pricing = z.union(
  [
    z.strictObject({
      inputPerMillionUsd: Positive.meta({
        description: "List price of a million prompt tokens, USD, positive. Required in this shape.",
      }),
      outputPerMillionUsd: Positive.meta({
        description: "List price of a million output tokens, USD, positive. Required in this shape.",
      }),
    }),
    z.strictObject({
      hourlyUsd: Positive.meta({
        description: "Price of a dedicated endpoint per hour, USD, positive. Required in this shape.",
      }),
    }),
  ],
  { error: "must be { inputPerMillionUsd, outputPerMillionUsd } or { hourlyUsd }, positive numbers (USD)" },
);
export type Pricing = z.infer<typeof Pricing>;

/** The scenario of a config that names none: the workload itself. */
export const DEFAULT_SCENARIO = "chat";

/** A scenario name: a slug of lowercase letters, digits and `-`, at most 64 characters. */
export const ScenarioName = z
  .string()
  .max(64, "must be at most 64 characters")
  .regex(/^[a-z0-9][a-z0-9-]*$/, "must be a slug: [a-z0-9][a-z0-9-]* (lowercase letters, digits, -)");

/** Named workload overrides, each applied on top of a target's workload; at least one. */
export const Scenarios = z
  .record(ScenarioName, WorkloadOverride)
  .refine((scenarios) => Object.keys(scenarios).length > 0, "must name at least one scenario");
export type Scenarios = z.infer<typeof Scenarios>;

export const Target = z.strictObject({
  /** Stable id: the URL and key of the target forever. */
  id: z
    .string()
    .max(64)
    .regex(/^[a-z0-9][a-z0-9._-]*$/, "must match [a-z0-9][a-z0-9._-]* (lowercase letters, digits, . _ -)")
    .meta({
      description:
        "Stable id, [a-z0-9][a-z0-9._-]*, at most 64 characters, unique in the file: the target's URL (/targets/<id>/) and store key forever; renaming it starts a new history. Required.",
    }),
  label: Name.meta({ description: "The name readers see, 1 to 200 characters. Required." }),
  baseURL: z.url({ protocol: /^https?$/ }).meta({
    description:
      "An http or https URL of an OpenAI-compatible API, up to and including /v1 (or the path the provider documents, such as /v1/openai or /v1beta/openai); plan and run warn of another ending. Required.",
  }),
  /** Name of the environment variable (or SST secret) holding the API key. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name like OPENROUTER_API_KEY")
    .optional()
    .meta({
      description:
        "Name of the environment variable holding the API key, such as OPENROUTER_API_KEY (deployed: the SST secret of that name); the key never sits in the file. Required with gateway openrouter (but for a stand-in on this machine). Default none (no key sent).",
    }),
  model: Name.meta({
    description: "The model of each request, as the endpoint names it, 1 to 200 characters. Required.",
  }),
  /** The model as a reader knows it; targets sharing it are routes of one model. Default: see `modelKeyOf`. */
  modelKey: z
    .string()
    .max(64)
    .regex(SLUG, "must be a slug: [a-z0-9][a-z0-9._-]* (lowercase letters, digits, . _ -)")
    .optional()
    .meta({
      description:
        "The model as a reader knows it (llama-3.1-8b-instruct), a slug of at most 64 characters; targets sharing it are routes of one model, compared on one model page. Default: the slug of model after its last /.",
    }),
  /** Declared price, for the declared cost per million output tokens. */
  pricing: Pricing.optional().meta({
    description:
      "What the route costs, for the declared cost per million output tokens: list prices { inputPerMillionUsd, outputPerMillionUsd } or a dedicated endpoint's { hourlyUsd }, USD. Default none.",
  }),
  /**
   * Output tok/s one stream of this target is expected to get, before it is measured: what `plan`
   * works durations and the top level's chunk rate out from (default 50), hence the sweep Lambda's
   * memory, and the first level's thread count. Measured levels take over from the second level on.
   */
  expectedOutputTokensPerSecond: Positive.optional().meta({
    description:
      "Output tokens per second one stream of this target is expected to get before it is measured, tok/s, positive: plan works durations, the top level's chunk rate, the sweep Lambda's memory and the first level's threads out from it. Default 50.",
  }),
  route: Route.meta({
    description:
      "How requests reach the provider and how the serving provider is pinned and verified; gateway is openrouter, litellm, direct or custom. Required.",
  }),
  workload: WorkloadOverride.optional().meta({
    description:
      "Workload fields overriding the config's workload for this target alone, field by field. Default none.",
  }),
  /** The config's scenarios this target is swept in (default: all of them, in the config's order). */
  scenarios: z.array(ScenarioName).min(1).optional().meta({
    description:
      "Names of the config's scenarios this target is swept in, at least one, none twice. Default: all of them, in the config's order.",
  }),
  /**
   * The target is its model's reference route (the maker's own API, or a full-precision copy): the
   * same-model test compares the model's other routes with it. At most one per model key.
   */
  reference: z.boolean().optional().meta({
    description:
      "true marks the target as its model's reference route (the maker's own API, or a full-precision copy): the same-model test compares the model's other routes with it, and the canary runs by default only for a model with one. At most one per modelKey. Default false.",
  }),
});
export type Target = z.infer<typeof Target>;

/** The schedule of a config that names none (also the deployment's, read by sst.config.ts). */
export const DEFAULT_SCHEDULE = "rate(6 hours)";

/** Which runs the published figures are taken over: the last `windowHours`, at most `maxRuns` of them. */
export const StandingConfig = z.strictObject({
  /** Runs started in this many hours before the build enter the standing. */
  windowHours: z.number().int().positive().default(72).meta({
    description:
      "Runs started within this many hours before the site build enter the standing, hours, a positive whole number. Default 72.",
  }),
  /** At most this many of the newest runs in the window enter. */
  maxRuns: z.number().int().positive().default(24).meta({
    description: "At most this many of the newest runs in the window enter, a positive whole number. Default 24.",
  }),
});
export type StandingConfig = z.infer<typeof StandingConfig>;

export const DEFAULT_STANDING: StandingConfig = { windowHours: 72, maxRuns: 24 };

const SCHEDULE = /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(\S+( \S+){5}\))$/;

/** The config file; target ids are unique. */
export const Config = z
  .strictObject({
    /** The JSON Schema an editor checks the file against (`../schemas/config.schema.json`); kneeboard ignores it. */
    $schema: z.string().optional().meta({
      description:
        "The JSON Schema an editor checks and completes this file against (the examples name ../schemas/config.schema.json); kneeboard ignores it. Default none.",
    }),
    targets: z.array(Target).min(1).meta({
      description:
        "The targets to sweep, at least one: each is one model behind one route (the same model through two providers is two targets). Required.",
    }),
    workload: WorkloadOverride.optional().meta({
      description:
        "The workload of every target; a target's workload, then a scenario, override it field by field. Default: each field's own default.",
    }),
    /** Named workload overrides; each (target, scenario) is swept as its own run (default: `chat`, the workload). */
    scenarios: Scenarios.optional().meta({
      description:
        "Named workload overrides (names are slugs, [a-z0-9][a-z0-9-]*, at most 64 characters), each swept as its own run of every target, in this order. Default: one scenario, chat, equal to the workload.",
    }),
    /** EventBridge expression for the AWS deployment. */
    schedule: z
      .string()
      .regex(SCHEDULE, "must be rate(N minutes|hours|days) or cron(6 fields)")
      .default(DEFAULT_SCHEDULE)
      .meta({
        description: `When the AWS deployment sweeps: an EventBridge expression, rate(N minute(s)|hour(s)|day(s)) or cron(...) with 6 fields; used only by the deployment. Default ${DEFAULT_SCHEDULE}.`,
      }),
    /** Which runs the published figures are taken over (default 72 hours, at most 24 runs). */
    standing: StandingConfig.default(DEFAULT_STANDING).meta({
      description:
        "Which runs the published figures are taken over: the last windowHours hours, at most maxRuns runs; a target's latest valid run always enters. Default { windowHours: 72, maxRuns: 24 }.",
    }),
  })
  .superRefine((config, ctx) => {
    const first = new Map<string, number>();
    targetsOf(config).forEach(({ id }, i) => {
      if (typeof id !== "string") return;
      const at = first.get(id);
      if (at === undefined) first.set(id, i);
      else problem(ctx, ["targets", i, "id"], `duplicate id ${id} (also targets[${at}].id)`);
    });
    kindsInTheirLayers(config, ctx);
    referencesPerModel(config, ctx);
    openRouterKeys(config, ctx);
  }, ALWAYS);
export type Config = z.infer<typeof Config>;

/**
 * What each kind asks of the workload layers of every (target, scenario) swept (`layerProblems`):
 * first of their arrivals (a conversation's users in a closed loop), then of what they search (a
 * replay's speedups cannot be searched, a search is counted in requests); each problem at the layer
 * that set the field, once.
 */
function kindsInTheirLayers(config: unknown, ctx: z.RefinementCtx): void {
  if (!isObject(config)) return;
  const scenarios = isObject(config.scenarios) ? config.scenarios : undefined;
  for (const check of ["arrival", "search"] as const) {
    const reported = new Set<string>();
    forEachSweep(config, scenarios, (layers) => {
      for (const { at, message } of layerProblems(layers)[check]) {
        if (reported.has(at.join("."))) continue;
        reported.add(at.join("."));
        problem(ctx, at, message);
      }
    });
  }
}

/** Calls `visit` with the workload layers (global, target, scenario), each at its path, of every (target, scenario) swept. */
function forEachSweep(
  config: Record<string, unknown>,
  scenarios: Record<string, unknown> | undefined,
  visit: (layers: (readonly [PropertyKey[], unknown])[]) => void,
): void {
  targetsOf(config).forEach((target, i) => {
    const own = (target as { workload?: unknown }).workload;
    const names = Array.isArray(target.scenarios)
      ? target.scenarios.filter((name): name is string => typeof name === "string")
      : scenarios
        ? Object.keys(scenarios)
        : [DEFAULT_SCENARIO];
    for (const name of names)
      visit([
        [["workload"], config.workload],
        [["targets", i, "workload"], own],
        [["scenarios", name], scenarios?.[name]],
      ]);
  });
}

/**
 * The model key of a target (or of a run document): its `modelKey`, else the slug of `model` after
 * its last `/` (`meta-llama/Llama-3.1-8B-Instruct` -> `llama-3.1-8b-instruct`): lowercased, every run
 * of other characters made one `-`, leading and trailing `.`, `_`, `-` dropped; `model` when nothing is left.
 */
export function modelKeyOf(target: { model: string; modelKey?: string | null }): string {
  if (target.modelKey) return target.modelKey;
  const slug = (target.model.split("/").at(-1) ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|[._-]+$/g, "")
    .slice(0, 64)
    .replace(/[._-]+$/, "");
  return slug || "model";
}

/** A second `reference: true` for one model key: a problem at each one after the first. */
function referencesPerModel(config: unknown, ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  targetsOf(config).forEach((target, i) => {
    const t = target as { reference?: unknown; model?: unknown; modelKey?: unknown };
    if (t.reference !== true || typeof t.model !== "string") return;
    const key = modelKeyOf({ model: t.model, modelKey: typeof t.modelKey === "string" ? t.modelKey : undefined });
    const before = first.get(key);
    if (before === undefined) first.set(key, i);
    else
      problem(
        ctx,
        ["targets", i, "reference"],
        `model ${key} has a reference route already (targets[${before}].reference): at most one per modelKey`,
      );
  });
}

/**
 * OpenRouter answers no request without a key: an `openrouter` route with no `apiKeyEnv` is a problem
 * there, but for one on this machine (a stand-in, such as the reference server's simulated gateway).
 */
function openRouterKeys(config: unknown, ctx: z.RefinementCtx): void {
  targetsOf(config).forEach((target, i) => {
    const { route, baseURL } = target as { route?: unknown; baseURL?: unknown };
    const local = typeof baseURL === "string" && URL.canParse(baseURL) && isLocalOnly(baseURL);
    if (isObject(route) && route.gateway === "openrouter" && target.apiKeyEnv === undefined && !local)
      problem(
        ctx,
        ["targets", i, "apiKeyEnv"],
        "is required with gateway openrouter, which answers no request without a key: name the variable that holds it, such as OPENROUTER_API_KEY",
      );
  });
}

/** The JSON Schema of the config file, generated from the zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    $id: "https://kneeboard.dev/schemas/config.schema.json",
    title: "kneeboard config",
    ...z.toJSONSchema(Config, { io: "input" }),
  };
}
