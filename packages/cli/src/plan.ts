/** @module `kneeboard plan`: checks a config and prints what each (target, scenario)'s sweep will do, sending nothing. */
import { type Config, loadConfig, type Workload } from "@kneeboard/core/config";
import { ConfigError } from "@kneeboard/core/errors";
import { type LevelLoad, type PlanWords, planWords } from "@kneeboard/core/kinds";
import {
  baseUrlWarning,
  CLIENT_CHUNKS_PER_CPU_SECOND,
  CLIENT_CHUNKS_PER_SECOND_PER_THREAD,
  CLIENT_PLANNED_CORE_SHARE,
  checkRequestsPerLevel,
  checkSearchBudget,
  checkSearchCap,
  checkSweeps,
  costAtScale,
  DEFAULT_MAX_INVOCATIONS,
  DEFAULT_PLAN_ASSUMPTIONS,
  HISTORY_DAYS,
  type InvocationFit,
  LAMBDA_DEADLINE_MARGIN_SECONDS,
  LAMBDA_INVOCATION_SECONDS,
  LAMBDA_MB_PER_VCPU,
  type LevelPlan,
  lambdaCostPerDay,
  missingNumbersWarning,
  planConfig,
  smallCanaryWarning,
  sweepMemoryMb,
  type TargetPlan,
} from "@kneeboard/core/plan";
import { isLocalOnly } from "@kneeboard/core/route";
import { loadTraces } from "@kneeboard/core/trace";

import { number } from "@kneeboard/core/words";

function fitText(fit: InvocationFit, plan: TargetPlan, words: PlanWords<Workload, LevelLoad>): string {
  // A search's bisections are planned at one load: each label once.
  const oversized = [...new Set(fit.oversizedLevels.map((i) => words.label((plan.levels[i] as LevelPlan).load)))];
  if (oversized.length)
    return `not sure to fit: level${oversized.length === 1 ? "" : "s"} ${oversized.join(", ")} alone may take over one invocation (${plan.invocationBudgetSeconds} s), and a deployed run that slow ends partial there`;
  return fit.invocations === 1
    ? "fits one invocation"
    : `needs ${fit.invocations} invocations (${fit.continuations} continuation${fit.continuations === 1 ? "" : "s"})`;
}

function keyText(name: string | null, env: Record<string, string | undefined>): string {
  if (name === null) return "none (the endpoint takes no key)";
  // Names the variable, never its value.
  return env[name]
    ? `${name} (set here)`
    : `${name} (not set here: \`kneeboard run\` would stop on it; deployed, it is the SST secret ${name})`;
}

/** What the top level asks of the client, in words. */
function topLevelText(plan: TargetPlan, words: PlanWords<Workload, LevelLoad>): string {
  const figures = {
    chunks: `${number(plan.topLevelChunksPerSecond)} chunks/s`,
    chunksPerSecond: plan.topLevelChunksPerSecond,
    maxTokens: plan.workload.maxTokens,
    expectedRequestSeconds: plan.expectedRequestSeconds,
  };
  return words.topLevel(plan.topLevelLoad, figures);
}

/** Runs of equal lines as one line each and how many times it came. */
function collapseRepeats(lines: string[]): { row: string; times: number }[] {
  const runs: { row: string; times: number }[] = [];
  for (const row of lines) {
    const last = runs.at(-1);
    if (last?.row === row) last.times++;
    else runs.push({ row, times: 1 });
  }
  return runs;
}

function targetText(plan: TargetPlan, env: Record<string, string | undefined>): string {
  const w = plan.workload;
  const words = planWords(w);
  const rows = plan.levels.map(
    (l) =>
      `  ${words.label(l.load).padStart(7)}  ${String(l.warmupRequests).padStart(7)}  ${(l.requests === null ? `${l.levelDurationSeconds} s` : String(l.requests)).padStart(8)}  ${number(l.expectedSeconds, 1).padStart(10)}  ${number(l.upperBoundSeconds).padStart(13)}`,
  );
  // A search plans its bisections alike (each at its cap, at the slowest load): one row with a count, not ten.
  const shown = collapseRepeats(rows).map(({ row, times }) => (times === 1 ? row : `${row}  x ${times}`));
  const loop = words.loop(w);
  const requests =
    plan.totalRequests === null
      ? `${loop} for ${w.levelDurationSeconds} s per level`
      : `${plan.totalRequests} measured requests, ${loop}`;
  const share = plan.clientCoreShare;
  const perLevel = checkRequestsPerLevel(w);
  const cap = checkSearchCap(w);
  const budget = checkSearchBudget(w);
  const lacks = missingNumbersWarning(w);
  return [
    `target ${plan.targetId} [${plan.scenario}]: ${plan.label} (model ${plan.model}, gateway ${plan.gateway})`,
    `  key: ${keyText(plan.apiKeyEnv, env)}`,
    `  workload: promptTokens ${w.promptTokens}, maxTokens ${w.maxTokens}, requestTimeoutSeconds ${w.requestTimeoutSeconds}, ignoreEos ${w.ignoreEos}${words.arrival(w)}`,
    ...words.before(plan.levels),
    `  ${words.column.padStart(7)}  warm-up  requests  expected s  upper bound s`,
    ...shown,
    ...words.after(plan.levels, w, plan.expectedRequestSeconds),
    ...(perLevel.message === null ? [] : [`  warning: ${perLevel.message}`]),
    ...(cap === null ? [] : [`  warning: ${cap.message}`]),
    ...(budget === null ? [] : [`  warning: ${budget}`]),
    ...(lacks === null ? [] : [`  warning: ${lacks}`]),
    ...searchText(plan),
    `  total: ${requests} + ${plan.totalWarmupRequests} warm-up`,
    `  duration expected: ${number(plan.expectedSeconds)} s`,
    `  duration upper bound: ${number(plan.upperBoundSeconds)} s`,
    canaryText(plan),
    toolCallsText(plan),
    `  top level: ${topLevelText(plan, words)}, ${number(share * 100)} % of what one client thread is planned to carry (${number(CLIENT_CHUNKS_PER_SECOND_PER_THREAD)} chunks/s: ${number(CLIENT_PLANNED_CORE_SHARE * 100)} % of a core, which parses ${number(CLIENT_CHUNKS_PER_CPU_SECOND)} as measured); a sweep with threads "auto" (the deployed one) would run it on ${plan.topLevelThreads === 1 ? "its own thread" : `${plan.topLevelThreads} worker threads`} (${plan.cores} core${plan.cores === 1 ? "" : "s"} here)${share > plan.topLevelThreads ? ": more than those are planned to carry, so the level may be flagged client.limited here" : ""}`,
  ].join("\n");
}

/** A searched sweep's upper bound in words; nothing for a ladder. */
function searchText(plan: TargetPlan): string[] {
  const s = plan.search;
  if (s === null) return [];
  const usd = s.usd === null ? "" : `, $${s.usd < 0.01 ? s.usd.toFixed(4) : s.usd.toFixed(2)} at the list prices`;
  return [
    "  search: the levels above are the most it can run within its budget, each at its cap of requests in the order they may run; it stops once capacity and the knee are bracketed, so it usually sends far fewer",
    `  search upper bound: ${s.levels} levels, ${s.requests} requests (warm-ups included; its budget, maxRequests, is ${s.budget}), ${number(s.promptTokens)} prompt and ${number(s.outputTokens)} output tokens${usd}, ${number(s.upperBoundSeconds)} s`,
  ];
}

/** The canary phase in words: requests, tokens, dollars where list-priced, time; or why it is off and what that saves. */
function canaryText(plan: TargetPlan): string {
  const c = plan.canary;
  const { cause, modelKey } = plan.canaryChoice;
  const saves = `saves ${plan.canarySavedRequests} requests per run`;
  if (c === null)
    return cause === "no-reference"
      ? `  canary off: model ${modelKey} has no reference route (${saves}): give it one ("reference": true on a route of that model), or set "canary": true to sample this route anyway`
      : cause === "alone"
        ? `  canary off: model ${modelKey} has no other route to compare with this reference one (${saves})`
        : "  canary: off (workload canary false)";
  const s = c.settings;
  const usd = c.usd === null ? "" : `, about $${c.usd < 0.01 ? c.usd.toFixed(4) : c.usd.toFixed(2)} at the list prices`;
  const small = smallCanaryWarning(s);
  return [
    `  canary (same model?): ${c.requests} requests after the levels (${c.requests / s.samplesPerPrompt} prompts x ${s.samplesPerPrompt}, temperature ${s.temperature}, maxTokens ${s.maxTokens}, ${s.concurrency} at once): about ${number(c.promptTokens)} prompt and at most ${number(c.outputTokens)} output tokens${usd}; expected ${number(c.expectedSeconds, 1)} s, upper bound ${number(c.upperBoundSeconds)} s, on top of the durations above`,
    ...(small === null ? [] : [`  warning: ${small}`]),
  ].join("\n");
}

/** The tool-call phase in words: requests, tokens, dollars where list-priced, time; or that it is off. */
function toolCallsText(plan: TargetPlan): string {
  const t = plan.toolCalls;
  if (t === null) return "  tool calls: off (workload toolCalls false, the default)";
  const s = t.settings;
  const usd = t.usd === null ? "" : `, about $${t.usd < 0.01 ? t.usd.toFixed(4) : t.usd.toFixed(2)} at the list prices`;
  return [
    `  tool calls (works for agents?): ${t.requests} requests after the levels and the canary (${t.suite}'s ${t.prompts} prompts x ${s.samplesPerPrompt}, temperature ${s.temperature}, maxTokens ${s.maxTokens}, ${s.concurrency} at once): about ${number(t.promptTokens)} prompt and at most ${number(t.outputTokens)} output tokens${usd}; expected ${number(t.expectedSeconds, 1)} s, upper bound ${number(t.upperBoundSeconds)} s, on top of the durations above`,
    ...(t.unjudged === null ? [] : [`  tool calls cannot be judged: ${t.unjudged}`]),
  ].join("\n");
}

/** How the expected and upper-bound figures above are worked out, under a heading. */
function assumptionsText(): string {
  const a = DEFAULT_PLAN_ASSUMPTIONS;
  return [
    "how the durations are worked out:",
    `  expected: each request takes ${a.ttftSeconds} s to its first token (a prompt over ${number(a.ttftPromptTokens)} tokens ${number(a.prefillTokensPerSecond)} tokens/s longer), then maxTokens at ${a.outputTokensPerSecondPerStream} tok/s per stream (a target's expectedOutputTokensPerSecond overrides it; ${a.chunksPerToken} chunk per token), capped at the timeout; a level runs ceil(requests / N) rounds after ceil(warm-up / N) warm-up rounds; an open-loop level sends for its duration (or its requests at the rate) after its warm-up, then waits for the last request.`,
    "  upper bound: every request runs to requestTimeoutSeconds (a fixed-duration level: its duration plus one timeout); waits after 429s (at most 30 s each) come on top.",
  ].join("\n");
}

/**
 * The daily cost of a catalogue of such routes (`costAtScale`): 100 and 1,000 routes, each like one of
 * the config's targets in turn, by service; nothing for a cron schedule.
 */
function scaleLines(plans: TargetPlan[], schedule: string): string[] {
  const usd = (x: number) => `$${x < 10 ? x.toFixed(2) : number(x)}`;
  return SCALE_ROUTES.flatMap((routes) => {
    const c = costAtScale(plans, schedule, routes);
    return c === null
      ? []
      : [
          `  cost at ${number(routes)} routes like these: about ${usd(c.usdPerDay)} a day: Lambda ${usd(c.lambda)}, S3 ${usd(c.s3)}, DynamoDB ${usd(c.dynamodb)} (after ${HISTORY_DAYS} days of history), CloudFront ${usd(c.cloudfront)}; the providers bill at most ${number(c.outputTokensPerDay / 1e6, 1)} M output tokens a day.`,
        ];
  });
}

/** The catalogue sizes `plan` prices. */
const SCALE_ROUTES = [100, 1000];

/**
 * The deployment's sizing under its heading: how each sweep fits Lambda invocations (a warning past the
 * invocations a run may use), the sweep Lambda's memory and the daily cost; or one line saying why it
 * is left out (every target on this machine, and `--deployed` not given).
 */
function deployedText(config: Config, plans: TargetPlan[], deployed: boolean): string {
  const local = config.targets.filter((t) => isLocalOnly(t.baseURL)).map((t) => t.id);
  if (local.length === config.targets.length && !deployed)
    return `deployed: not sized, as every target is on this machine (127.0.0.1 or localhost), which AWS cannot reach; \`kneeboard plan --deployed\` sizes it anyway.`;
  const budget = LAMBDA_INVOCATION_SECONDS - LAMBDA_DEADLINE_MARGIN_SECONDS;
  const max = DEFAULT_MAX_INVOCATIONS;
  const memory = sweepMemoryMb(plans);
  const busiest = Math.max(...plans.map((p) => p.topLevelChunksPerSecond));
  const cost = lambdaCostPerDay(plans, config.schedule, config.targets.length);
  const they = local.length === 1 ? "it" : "them";
  return [
    "deployed (AWS Lambda, `kneeboard deploy`):",
    `  one Lambda invocation sweeps for ${budget} s (${LAMBDA_INVOCATION_SECONDS} s less a ${LAMBDA_DEADLINE_MARGIN_SECONDS} s margin to save); a level that does not fit in what is left runs in a continuation, and a run may use ${max} invocations (${max - 1} continuations; KNEEBOARD_SWEEP_MAX_INVOCATIONS at deploy sets it) before it is stored partial.`,
    ...plans.flatMap((p) => {
      const words = planWords(p.workload);
      const over = p.expected.invocations > max;
      return [
        `  ${p.targetId} [${p.scenario}]: expected ${number(p.expectedSeconds)} s, ${fitText(p.expected, p, words)}; upper bound ${number(p.upperBoundSeconds)} s, ${fitText(p.upperBound, p, words)}`,
        ...(over
          ? [
              `  warning: ${p.targetId} [${p.scenario}] needs ${p.expected.invocations} invocations at the expected durations, more than the ${max} a run may use: deployed, its run is stored partial after ${max} invocations; sweep fewer levels or requests, or deploy with KNEEBOARD_SWEEP_MAX_INVOCATIONS=${p.expected.invocations} (docs/deploying.md)`,
            ]
          : []),
      ];
    }),
    `  memory: the sweep Lambda gets ${number(memory)} MB, about ${number(memory / LAMBDA_MB_PER_VCPU, 1)} vCPU: one per client thread the busiest top level (${number(busiest)} chunks/s) is expected to need, at least one.`,
    cost === null
      ? `  cost: not estimated for a cron schedule (${config.schedule}); a rate(...) schedule gets a figure.`
      : `  cost: Lambda about $${cost.usdPerDay.toFixed(2)} a day ($${(cost.usdPerDay * 30).toFixed(2)} a month): ${number(cost.slotsPerDay, 1)} slots a day, ${number(cost.gbSecondsPerDay)} GB-s and ${number(cost.invocationsPerDay)} invocations of sweep, publish and plan at the expected durations (x86_64, us-east-1 prices). Providers bill the tokens; S3, SQS, DynamoDB, SNS and CloudFront add cents.`,
    ...scaleLines(plans, config.schedule),
    ...(local.length
      ? [
          `  warning: ${local.join(", ")} ${local.length === 1 ? "is" : "are"} on this machine (127.0.0.1 or localhost): AWS cannot reach ${they}, so deployed, every sweep of ${they} fails as unreachable. The sizing above counts ${they} anyway; deploy targets with public URLs.`,
        ]
      : []),
  ].join("\n");
}

/**
 * Validates configFile and prints the plan of each target, then how its figures are worked out and
 * the deployment's sizing; exit 0. An invalid config, or a sweep none of whose levels can be valid
 * (closed loop, requestsPerLevel at most every N), throws a ConfigError naming the file (exit 2):
 * nothing of the plan is printed.
 */
export async function plan(options: {
  configFile: string;
  io: { out: NodeJS.WritableStream };
  env?: Record<string, string | undefined>;
  /** Size the deployment even when every target is on this machine. */
  deployed?: boolean;
}): Promise<number> {
  const env = options.env ?? process.env;
  // Planning sends nothing, so a missing key is reported per target, not a problem of the config.
  const config = await loadConfig(options.configFile, { requireKeys: false, env });
  // Each trace is read and checked now (bad lines, an empty window, a file over 50 MB stop the plan, exit 2).
  const traces = loadTraces(config, options.configFile);
  const { problems } = checkSweeps(config, config.targets);
  if (problems.length > 0) throw new ConfigError(problems, options.configFile);
  const plans = planConfig(config, DEFAULT_PLAN_ASSUMPTIONS, traces);
  const sweeps = plans.length;
  const header = [
    `${options.configFile} is valid: ${config.targets.length} target${config.targets.length === 1 ? "" : "s"}, ${sweeps} sweep${sweeps === 1 ? "" : "s"} per slot (one per target and scenario), schedule ${config.schedule}. Nothing is sent; API keys are not needed to plan.`,
    ...config.targets.flatMap((t) => baseUrlWarning(t) ?? []).map((warning) => `warning: ${warning}`),
  ].join("\n");
  const sections = [
    header,
    ...plans.map((p) => targetText(p, env)),
    assumptionsText(),
    deployedText(config, plans, options.deployed ?? false),
  ];
  options.io.out.write(`${sections.join("\n\n")}\n`);
  return 0;
}
