/** @module `kneeboard plan`: checks a config and prints what each (target, scenario)'s sweep will do, sending nothing. */
import { loadConfig } from "@kneeboard/core/config";
import {
  CLIENT_CHUNKS_PER_CPU_SECOND,
  CLIENT_CHUNKS_PER_SECOND_PER_THREAD,
  CLIENT_PLANNED_CORE_SHARE,
  checkRequestsPerLevel,
  DEFAULT_PLAN_ASSUMPTIONS,
  type InvocationFit,
  LAMBDA_DEADLINE_MARGIN_SECONDS,
  LAMBDA_INVOCATION_SECONDS,
  LAMBDA_MB_PER_VCPU,
  type LevelPlan,
  lambdaCostPerDay,
  planConfig,
  sweepMemoryMb,
  type TargetPlan,
} from "@kneeboard/core/plan";
import { loadTraces, type TraceWindow } from "@kneeboard/core/trace";

const number = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function fitText(fit: InvocationFit, plan: TargetPlan): string {
  const oversized = fit.oversizedLevels.map((i) => levelName(plan.levels[i] as LevelPlan));
  if (oversized.length)
    return `not sure to fit: level${oversized.length === 1 ? "" : "s"} ${oversized.join(", ")} alone may take over one invocation (${plan.invocationBudgetSeconds} s), and a deployed run that slow ends partial there`;
  return fit.invocations === 1
    ? "fits one invocation"
    : `needs ${fit.invocations} invocations (${fit.continuations} continuation${fit.continuations === 1 ? "" : "s"})`;
}

/** A level as the table names it: N, an open loop's rate, or a trace replay's speedup. */
function levelName({ load }: LevelPlan): string {
  switch (load.kind) {
    case "closed":
      return String(load.concurrency);
    case "open":
      return `${load.ratePerSecond}/s`;
    case "trace":
      return `x${load.speedup}`;
  }
}

/** A replayed window in words: its requests, tokens, reusable share, and its duration at each speedup. */
function traceText(trace: TraceWindow, speedups: number[]): string[] {
  const window = `from ${trace.start} s${trace.limit === null ? "" : `, at most ${trace.limit} requests`}`;
  return [
    `  trace: ${trace.name} (${trace.format}, sha256 ${trace.sha256.slice(0, 12)}..., ${number(trace.bytes / 1024 / 1024, 1)} MB), window ${window}: ${trace.requests.length} requests over ${number(trace.durationSeconds, 1)} s${trace.skipped ? ` (${trace.skipped} rows with 0 response tokens skipped)` : ""}`,
    `  trace tokens: ${number(trace.inputTokens)} prompt, ${number(trace.outputTokens)} output; its hash_ids allow ${number(trace.reusablePromptTokenShare * 100, 1)} % of prompt tokens from a cache (blocks of ${trace.blockSize})`,
    `  trace duration: ${speedups.map((s) => `x${s} ${number(trace.durationSeconds / s, 1)} s`).join(", ")}`,
  ];
}

function keyText(name: string | null, env: Record<string, string | undefined>): string {
  if (name === null) return "none (the endpoint takes no key)";
  // Names the variable, never its value.
  return env[name]
    ? `${name} (set here)`
    : `${name} (not set here: \`kneeboard run\` would stop on it; deployed, it is the SST secret ${name})`;
}

/** What the top level asks of the client, in words. */
function topLevelText(plan: TargetPlan): string {
  const top = plan.levels.at(-1);
  const w = plan.workload;
  const chunks = `${number(plan.topLevelChunksPerSecond)} chunks/s`;
  if (top?.load.kind === "trace") {
    const { trace, speedup } = top.load;
    return `the window's ${number(trace.outputTokens)} output tokens over ${number(trace.durationSeconds / speedup, 1)} s at x${speedup} = ${chunks}`;
  }
  if (top?.load.kind === "open") {
    const rate = top.load.ratePerSecond;
    return `${rate} requests/s x ${w.maxTokens} tokens = ${chunks} (about ${number(rate * plan.expectedRequestSeconds, 1)} in flight)`;
  }
  const n = top?.load.concurrency ?? 1;
  return `${n} streams x ${number(plan.topLevelChunksPerSecond / n)} chunks/s = ${chunks}`;
}

function targetText(plan: TargetPlan, env: Record<string, string | undefined>): string {
  const w = plan.workload;
  // Little's law: a rate keeps rate x request-duration requests in flight; at maxInFlight sends wait.
  const maxInFlight = w.arrival.mode === "closed" ? null : w.arrival.maxInFlight;
  const traceLoads = plan.levels.flatMap((l) => (l.load.kind === "trace" ? [l.load] : []));
  const trace = traceLoads[0]?.trace;
  const rows = plan.levels.map(
    (l) =>
      `  ${levelName(l).padStart(7)}  ${String(l.warmupRequests).padStart(7)}  ${(l.requests === null ? `${l.levelDurationSeconds} s` : String(l.requests)).padStart(8)}  ${number(l.expectedSeconds, 1).padStart(10)}  ${number(l.upperBoundSeconds).padStart(13)}`,
  );
  const loop =
    w.arrival.mode === "trace"
      ? "trace replay (warm-up one at a time)"
      : w.arrival.mode === "gamma"
        ? "open loop (gamma arrivals, warm-up one at a time)"
        : maxInFlight !== null
          ? "open loop (Poisson arrivals, warm-up one at a time)"
          : "closed loop";
  const requests =
    plan.totalRequests === null
      ? `${loop} for ${w.levelDurationSeconds} s per level`
      : `${plan.totalRequests} measured requests${maxInFlight === null ? "" : `, ${loop}`}`;
  const share = plan.clientCoreShare;
  const inFlight = (l: LevelPlan) => (l.load.kind === "open" ? l.load.ratePerSecond : 0) * plan.expectedRequestSeconds;
  const crowded = maxInFlight === null ? [] : plan.levels.filter((l) => inFlight(l) >= maxInFlight);
  const perLevel = checkRequestsPerLevel(w);
  return [
    `target ${plan.targetId} [${plan.scenario}]: ${plan.label} (model ${plan.model}, gateway ${plan.gateway})`,
    `  key: ${keyText(plan.apiKeyEnv, env)}`,
    `  workload: promptTokens ${w.promptTokens}, maxTokens ${w.maxTokens}, requestTimeoutSeconds ${w.requestTimeoutSeconds}, ignoreEos ${w.ignoreEos}${arrivalText(w.arrival)}`,
    ...(trace
      ? traceText(
          trace,
          traceLoads.map((l) => l.speedup),
        )
      : []),
    `  ${(trace ? "speedup" : maxInFlight !== null ? "rate" : "level").padStart(7)}  warm-up  requests  expected s  upper bound s`,
    ...rows,
    ...(crowded.length
      ? [
          `  maxInFlight: at ${crowded.map(levelName).join(", ")} about ${crowded.map((l) => number(inFlight(l))).join(", ")} requests would be in flight, at or over ${maxInFlight}: expect those levels invalid (max_in_flight)`,
        ]
      : []),
    ...(perLevel.message === null ? [] : [`  ${perLevel.noValidLevel ? "error" : "warning"}: ${perLevel.message}`]),
    ...conversationText(plan),
    `  total: ${requests} + ${plan.totalWarmupRequests} warm-up`,
    `  duration expected: ${number(plan.expectedSeconds)} s, ${fitText(plan.expected, plan)}`,
    `  duration upper bound: ${number(plan.upperBoundSeconds)} s, ${fitText(plan.upperBound, plan)}`,
    canaryText(plan),
    `  top level: ${topLevelText(plan)}, ${number(share * 100)} % of what one client thread is planned to carry (${number(CLIENT_CHUNKS_PER_SECOND_PER_THREAD)} chunks/s: ${number(CLIENT_PLANNED_CORE_SHARE * 100)} % of a core, which parses ${number(CLIENT_CHUNKS_PER_CPU_SECOND)} as measured); a sweep with threads "auto" (the deployed one) would run it on ${plan.topLevelThreads === 1 ? "its own thread" : `${plan.topLevelThreads} worker threads`} (${plan.cores} core${plan.cores === 1 ? "" : "s"} here)${share > plan.topLevelThreads ? ": more than those are planned to carry, so the level may be flagged client.limited here" : ""}`,
  ].join("\n");
}

/** The canary phase in words: requests, tokens, dollars where list-priced, time. */
function canaryText(plan: TargetPlan): string {
  const c = plan.canary;
  if (c === null) return "  canary: off (workload canary false)";
  const s = c.settings;
  const usd = c.usd === null ? "" : `, about $${c.usd < 0.01 ? c.usd.toFixed(4) : c.usd.toFixed(2)} at the list prices`;
  return `  canary (same model?): ${c.requests} requests after the levels (${c.requests / s.samplesPerPrompt} prompts x ${s.samplesPerPrompt}, temperature ${s.temperature}, maxTokens ${s.maxTokens}, ${s.concurrency} at once): about ${number(c.promptTokens)} prompt and at most ${number(c.outputTokens)} output tokens${usd}; expected ${number(c.expectedSeconds, 1)} s, upper bound ${number(c.upperBoundSeconds)} s, on top of the durations above`;
}

/** A workload's arrival, after its other fields, in words (nothing for a closed loop). */
function arrivalText(arrival: TargetPlan["workload"]["arrival"]): string {
  switch (arrival.mode) {
    case "closed":
      return "";
    case "poisson":
      return `, arrival poisson (seed ${arrival.seed}, maxInFlight ${arrival.maxInFlight})`;
    case "gamma":
      return `, arrival gamma (burstiness ${arrival.burstiness}, seed ${arrival.seed}, maxInFlight ${arrival.maxInFlight})`;
    case "trace":
      return `, arrival trace (a replay sends each request's own prompt length and max_tokens; maxInFlight ${arrival.maxInFlight})`;
  }
}

/** A conversation's tokens per turn and in all, and whether each level's requests reach its last turn. */
function conversationText(plan: TargetPlan): string[] {
  const talk = plan.conversation;
  if (!talk) return [];
  const w = plan.workload;
  const byTurn = talk.promptTokensByTurn.map((tokens, i) => `${i + 1}: ${number(tokens)}`).join(", ");
  const lines = [
    `  conversation: ${talk.turns} turn${talk.turns === 1 ? "" : "s"} each, N users in conversation at level N, ${talk.thinkSeconds} s of think time between an answer and the next question; a ${number(talk.sharedPrefixTokens)}-token system prompt, ${number(talk.turnPromptTokens)}-token questions, answers up to ${number(w.maxTokens)} tokens`,
    `    prompt tokens by turn: ${byTurn}`,
    `    in all, a conversation: ${number(talk.promptTokens)} prompt tokens (up to ${number(talk.cacheablePromptTokens)} a prefix cache can serve: the system prompt and the history) and ${number(talk.outputTokens)} answer tokens`,
  ];
  // A counted level's N users share its requests: below turns x N, some never reach the last turn.
  const perLevel = w.requestsPerLevel;
  const short =
    perLevel === undefined
      ? []
      : plan.levels.filter((l) => l.load.kind === "closed" && perLevel < talk.turns * l.load.concurrency);
  if (short.length)
    lines.push(
      `  warning: requestsPerLevel ${perLevel} is under turns x N at level${short.length === 1 ? "" : "s"} ${short.map(levelName).join(", ")}: not every user reaches turn ${talk.turns} there, so the later turns have few samples or none`,
    );
  return lines;
}

/** Whether a base URL names this machine (loopback or localhost), which a Lambda cannot reach. */
export function isLocalOnly(baseURL: string): boolean {
  const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
  return (
    host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1" || host === "0.0.0.0"
  );
}

/**
 * Validates configFile (exit 2 through ConfigError) and prints the plan of each target; exit 0, or 2
 * when a sweep's workload can give no valid level (closed loop, requestsPerLevel at most every N).
 */
export async function plan(options: {
  configFile: string;
  io: { out: NodeJS.WritableStream };
  env?: Record<string, string | undefined>;
}): Promise<number> {
  const env = options.env ?? process.env;
  // Planning sends nothing, so a missing key is reported per target, not a problem of the config.
  const config = await loadConfig(options.configFile, { requireKeys: false, env });
  const a = DEFAULT_PLAN_ASSUMPTIONS;
  const budget = LAMBDA_INVOCATION_SECONDS - LAMBDA_DEADLINE_MARGIN_SECONDS;
  // Each trace is read and checked now (bad lines, an empty window, a file over 50 MB stop the plan, exit 2).
  const plans = planConfig(config, a, loadTraces(config, options.configFile));
  const sweeps = plans.length;
  const header = [
    `${options.configFile} is valid: ${config.targets.length} target${config.targets.length === 1 ? "" : "s"}, ${sweeps} sweep${sweeps === 1 ? "" : "s"} per slot (one per target and scenario), schedule ${config.schedule}. Nothing is sent; API keys are not needed to plan.`,
    `expected: each request takes ${a.ttftSeconds} s to its first token (a prompt over ${number(a.ttftPromptTokens)} tokens ${number(a.prefillTokensPerSecond)} tokens/s longer), then maxTokens at ${a.outputTokensPerSecondPerStream} tok/s per stream (a target's expectedOutputTokensPerSecond overrides it; ${a.chunksPerToken} chunk per token), capped at the timeout; a level runs ceil(requests / N) rounds after ceil(warm-up / N) warm-up rounds; an open-loop level sends for its duration (or its requests at the rate) after its warm-up, then waits for the last request.`,
    "upper bound: every request runs to requestTimeoutSeconds (a fixed-duration level: its duration plus one timeout); waits after 429s (at most 30 s each) come on top.",
    `one Lambda invocation sweeps for ${budget} s (${LAMBDA_INVOCATION_SECONDS} s less a ${LAMBDA_DEADLINE_MARGIN_SECONDS} s margin to save); a level that does not fit in what is left runs in a continuation.`,
  ];
  const memory = sweepMemoryMb(plans);
  const busiest = Math.max(...plans.map((p) => p.topLevelChunksPerSecond));
  const cost = lambdaCostPerDay(plans, config.schedule, config.targets.length);
  const local = config.targets.filter((t) => isLocalOnly(t.baseURL)).map((t) => t.id);
  const deployed = [
    `deployed: the sweep Lambda gets ${number(memory)} MB, about ${number(memory / LAMBDA_MB_PER_VCPU, 1)} vCPU: one per client thread the busiest top level (${number(busiest)} chunks/s) is expected to need, at least one.`,
    cost === null
      ? `deployed cost: not estimated for a cron schedule (${config.schedule}); a rate(...) schedule gets a figure.`
      : `deployed cost: Lambda about $${cost.usdPerDay.toFixed(2)} a day ($${(cost.usdPerDay * 30).toFixed(2)} a month): ${number(cost.slotsPerDay, 1)} slots a day, ${number(cost.gbSecondsPerDay)} GB-s and ${number(cost.invocationsPerDay)} invocations of sweep, publish and plan at the expected durations (x86_64, us-east-1 prices). Providers bill the tokens; S3, SQS, DynamoDB, SNS and CloudFront add cents.`,
    ...(local.length
      ? [
          `warning: ${local.join(", ")} ${local.length === 1 ? "is" : "are"} on this machine (127.0.0.1 or localhost): AWS cannot reach ${local.length === 1 ? "it" : "them"}, so deployed, every sweep of ${local.length === 1 ? "it" : "them"} fails as unreachable. The sizing above counts ${local.length === 1 ? "it" : "them"} anyway; deploy targets with public URLs.`,
        ]
      : []),
  ].join("\n");
  options.io.out.write(`${[header.join("\n"), ...plans.map((p) => targetText(p, env)), deployed].join("\n\n")}\n`);
  return plans.some((p) => checkRequestsPerLevel(p.workload).noValidLevel) ? 2 : 0;
}
