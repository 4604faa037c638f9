/** @module `kneeboard plan`: checks a config and prints what each (target, scenario)'s sweep will do, sending nothing. */
import { loadConfig } from "@kneeboard/core/config";
import {
  CLIENT_CHUNKS_PER_CPU_SECOND,
  CLIENT_CHUNKS_PER_SECOND_PER_THREAD,
  CLIENT_PLANNED_CORE_SHARE,
  DEFAULT_PLAN_ASSUMPTIONS,
  type InvocationFit,
  LAMBDA_DEADLINE_MARGIN_SECONDS,
  LAMBDA_INVOCATION_SECONDS,
  LAMBDA_MB_PER_VCPU,
  planConfig,
  sweepMemoryMb,
  type TargetPlan,
} from "@kneeboard/core/plan";

const number = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function fitText(fit: InvocationFit, plan: TargetPlan): string {
  const oversized = fit.oversizedLevels.map((i) => plan.levels[i]?.concurrency);
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

function targetText(plan: TargetPlan, env: Record<string, string | undefined>): string {
  const w = plan.workload;
  const rows = plan.levels.map(
    (l) =>
      `  ${String(l.concurrency).padStart(5)}  ${String(l.warmupRequests).padStart(7)}  ${(l.requests === null ? `${l.levelDurationSeconds} s` : String(l.requests)).padStart(8)}  ${number(l.expectedSeconds, 1).padStart(10)}  ${number(l.upperBoundSeconds).padStart(13)}`,
  );
  const requests =
    plan.totalRequests === null
      ? `closed loop for ${w.levelDurationSeconds} s per level`
      : `${plan.totalRequests} measured requests`;
  const top = plan.levels.at(-1)?.concurrency ?? 1;
  const perStream = plan.topLevelChunksPerSecond / top;
  const share = plan.clientCoreShare;
  return [
    `target ${plan.targetId} [${plan.scenario}]: ${plan.label} (model ${plan.model}, gateway ${plan.gateway})`,
    `  key: ${keyText(plan.apiKeyEnv, env)}`,
    `  workload: promptTokens ${w.promptTokens}, maxTokens ${w.maxTokens}, requestTimeoutSeconds ${w.requestTimeoutSeconds}, ignoreEos ${w.ignoreEos}`,
    "  level  warm-up  requests  expected s  upper bound s",
    ...rows,
    `  total: ${requests} + ${plan.totalWarmupRequests} warm-up`,
    `  duration expected: ${number(plan.expectedSeconds)} s, ${fitText(plan.expected, plan)}`,
    `  duration upper bound: ${number(plan.upperBoundSeconds)} s, ${fitText(plan.upperBound, plan)}`,
    `  top level: ${top} streams x ${number(perStream)} chunks/s = ${number(plan.topLevelChunksPerSecond)} chunks/s, ${number(share * 100)} % of what one client thread is planned to carry (${number(CLIENT_CHUNKS_PER_SECOND_PER_THREAD)} chunks/s: ${number(CLIENT_PLANNED_CORE_SHARE * 100)} % of a core, which parses ${number(CLIENT_CHUNKS_PER_CPU_SECOND)} as measured); a sweep with threads "auto" (the deployed one) would run it on ${plan.topLevelThreads === 1 ? "its own thread" : `${plan.topLevelThreads} worker threads`} (${plan.cores} core${plan.cores === 1 ? "" : "s"} here)${share > plan.topLevelThreads ? ": more than those are planned to carry, so the level may be flagged client.limited here" : ""}`,
  ].join("\n");
}

/** Validates configFile (exit 2 through ConfigError) and prints the plan of each target; exit 0. */
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
  const plans = planConfig(config);
  const sweeps = plans.length;
  const header = [
    `${options.configFile} is valid: ${config.targets.length} target${config.targets.length === 1 ? "" : "s"}, ${sweeps} sweep${sweeps === 1 ? "" : "s"} per slot (one per target and scenario), schedule ${config.schedule}. Nothing is sent; API keys are not needed to plan.`,
    `expected: each request takes ${a.ttftSeconds} s to its first token (a prompt over ${number(a.ttftPromptTokens)} tokens ${number(a.prefillTokensPerSecond)} tokens/s longer), then maxTokens at ${a.outputTokensPerSecondPerStream} tok/s per stream (a target's expectedOutputTokensPerSecond overrides it; ${a.chunksPerToken} chunk per token), capped at the timeout; a level runs ceil(requests / N) rounds after ceil(warm-up / N) warm-up rounds.`,
    "upper bound: every request runs to requestTimeoutSeconds (a fixed-duration level: its duration plus one timeout); waits after 429s (at most 30 s each) come on top.",
    `one Lambda invocation sweeps for ${budget} s (${LAMBDA_INVOCATION_SECONDS} s less a ${LAMBDA_DEADLINE_MARGIN_SECONDS} s margin to save); a level that does not fit in what is left runs in a continuation.`,
  ];
  const memory = sweepMemoryMb(plans);
  const busiest = Math.max(...plans.map((p) => p.topLevelChunksPerSecond));
  const deployed = `deployed: the sweep Lambda gets ${number(memory)} MB, about ${number(memory / LAMBDA_MB_PER_VCPU, 1)} vCPU: one per client thread the busiest top level (${number(busiest)} chunks/s) is expected to need, at least one.`;
  options.io.out.write(`${[header.join("\n"), ...plans.map((p) => targetText(p, env)), deployed].join("\n\n")}\n`);
  return 0;
}
