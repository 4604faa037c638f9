/**
 * @module What a pasted link says: each page's title and description state its headline figures
 * with the concurrency they were measured at ("X: 410 tok/s alone, 1,261 tok/s at 8 users").
 */
import type { Alert } from "@kneeboard/core/alerts";
import { loadWords } from "@kneeboard/core/run";
import { fmt } from "./format.ts";
import { fmtRate, rateOf, rateRows } from "./open-loop.ts";
import { closedLoopViews, type TargetView, viewAxis } from "./site-data.ts";

/** The figures a headline states, in tok/s, with the concurrency of the concurrent one. */
export interface HeadlineFigures {
  label: string;
  simulated: boolean;
  /** Output tok/s of one request alone (concurrency 1). */
  aloneTokensPerSecond: number | null;
  /** Aggregate output tok/s at `atConcurrency`. */
  concurrentTokensPerSecond: number | null;
  atConcurrency: number | null;
}

/** The latest run's single-stream and peak figures of a target. */
export function headlineFigures(target: TargetView): HeadlineFigures {
  const s = target.latest.summary;
  return {
    label: target.label,
    simulated: target.simulated,
    aloneTokensPerSecond: s.singleStream?.outputTokensPerSecond ?? null,
    concurrentTokensPerSecond: s.peak?.aggregateOutputTokensPerSecond ?? null,
    atConcurrency: s.peak?.load.kind === "closed" ? s.peak.load.concurrency : null,
  };
}

/** The label with "(simulated)" after it for a simulated target, unless the label already says so. */
export function simulatedLabel(label: string, simulated: boolean): string {
  return simulated && !/\(simulated\)\s*$/i.test(label) ? `${label} (simulated)` : label;
}

const users = (n: number) => `${fmt(n)} ${n === 1 ? "user" : "users"}`;

/** "Label: 410 tok/s alone, 1,261 tok/s at 8 users" (parts without a figure are left out). */
export function headline(f: HeadlineFigures): string {
  const parts: string[] = [];
  if (f.aloneTokensPerSecond !== null) parts.push(`${fmt(f.aloneTokensPerSecond)} tok/s alone`);
  if (f.concurrentTokensPerSecond !== null && f.atConcurrency !== null)
    parts.push(`${fmt(f.concurrentTokensPerSecond)} tok/s at ${users(f.atConcurrency)}`);
  const label = simulatedLabel(f.label, f.simulated);
  return parts.length ? `${label}: ${parts.join(", ")}` : `${label}: no figures yet`;
}

/** A target page's description: the headline, what the page shows, and when it was measured. */
export function targetDescription(target: TargetView): string {
  const knee = target.latest.summary.kneeConcurrency;
  return `${headline(headlineFigures(target))}${knee === null ? "" : `; the knee at ${users(knee)}`}. Throughput, TTFT and tail latency against concurrency, and every run since ${target.history[0]?.startedAt.slice(0, 10) ?? "the first"}, measured ${target.latest.startedAt.slice(0, 10)}.`;
}

/** An open-loop view's headline: "Label: sustains 4 req/s at the SLO, 1,200 tok/s at 8 req/s" (no concurrency: its levels are rates). */
export function rateHeadline(target: TargetView): string {
  const s = target.latest.summary;
  const parts: string[] = [];
  if (s.capacityRequestsPerSecond) parts.push(`sustains ${fmtRate(s.capacityRequestsPerSecond)} at the SLO`);
  const peakRate = rateOf(s.peak);
  if (s.peak)
    parts.push(`${fmt(s.peak.aggregateOutputTokensPerSecond)} tok/s${peakRate ? ` at ${fmtRate(peakRate)}` : ""}`);
  const label = simulatedLabel(target.label, target.simulated);
  return parts.length ? `${label}: ${parts.join(", ")}` : `${label}: no figures yet`;
}

/** A target page's title: its headline, and its scenario where that tells the page apart (`nameScenario`). */
export function targetTitle(target: TargetView, nameScenario: boolean): string {
  const axis = viewAxis(target);
  const head =
    axis === "speedup"
      ? `${simulatedLabel(target.label, target.simulated)}: replaying ${target.details?.trace?.name ?? "a trace"}`
      : axis === "rate"
        ? rateHeadline(target)
        : headline(headlineFigures(target));
  return nameScenario ? `${head} · scenario ${target.scenario}` : head;
}

/** An open-loop target page's description. */
export function rateDescription(target: TargetView): string {
  return `${rateHeadline(target)}. Scenario ${target.scenario}: requests on an open loop; throughput, goodput, TTFT and end-to-end latency against the offered request rate, measured ${target.latest.startedAt.slice(0, 10)}.`;
}

/** A trace replay's page description: the trace, and its figures at the recorded pace. */
export function traceDescription(target: TargetView): string {
  const trace = target.details?.trace;
  const first = [...target.latest.levels].sort((a, b) => a.level - b.level)[0];
  const figures = first
    ? ` At ${loadWords(first.load)}: TTFT p95 ${fmt(first.ttftP95Ms)} ms, e2e p95 ${fmt(first.e2eP95Ms)} ms; the trace allows ${first.reusablePromptTokenShare === null ? "—" : `${fmt(first.reusablePromptTokenShare * 100)} %`} of prompt tokens from a cache, the route reported ${first.cachedPromptTokenShare === null ? "none" : `${fmt(first.cachedPromptTokenShare * 100)} %`} cached.`
    : "";
  return `${simulatedLabel(target.label, target.simulated)} replaying ${trace ? `the trace ${trace.name} (${trace.requests} requests)` : "a trace"}, scenario ${target.scenario}.${figures} Measured ${target.latest.startedAt.slice(0, 10)}.`;
}

/** The target with the highest figure by pick, or null. */
function best(targets: TargetView[], pick: (f: HeadlineFigures) => number | null): HeadlineFigures | null {
  let top: HeadlineFigures | null = null;
  for (const t of targets) {
    const f = headlineFigures(t);
    if (pick(f) !== null && (top === null || (pick(f) as number) > (pick(top) as number))) top = f;
  }
  return top;
}

/** The leaderboard's description: how many targets, and the top ones alone and under load. */
export function leaderboardDescription(targets: TargetView[]): string {
  if (targets.length === 0)
    return "Single-stream and concurrent throughput of LLM endpoints, side by side. No runs yet.";
  const loaded = best(targets, (f) => f.concurrentTokensPerSecond);
  const alone = best(targets, (f) => f.aloneTokensPerSecond);
  const parts = [
    `${targets.length} LLM ${targets.length === 1 ? "endpoint" : "endpoints"}, one user and many at once.`,
  ];
  if (loaded) parts.push(`Most under load: ${headline(loaded)}.`);
  if (alone && alone.label !== loaded?.label) parts.push(`Fastest alone: ${headline(alone)}.`);
  return parts.join(" ");
}

/**
 * A scenario leaderboard's description: the closed-loop one whenever the scenario has closed-loop
 * targets (they lead its page), else the top capacity in requests/s of its open loop.
 */
export function scenarioDescription(targets: TargetView[], scenario: string, scenarioCount: number): string {
  const closed = closedLoopViews(targets);
  if (closed.length > 0 || targets.length === 0) {
    const base = leaderboardDescription(closed);
    return scenarioCount > 1 ? `${base} Scenario ${scenario}.` : base;
  }
  const top = rateRows(targets).find((r) => r.capacity !== null);
  return `${targets.length} LLM ${targets.length === 1 ? "endpoint" : "endpoints"} in scenario ${scenario}, requests on an open loop, ranked by capacity in requests/s at the SLO.${
    top?.capacity ? ` Highest: ${simulatedLabel(top.label, top.simulated)}, ${fmtRate(top.capacity.median)}.` : ""
  }`;
}

/** The alerts page's description: how many are open, and the newest. */
export function alertsDescription(alerts: Alert[]): string {
  const open = alerts.filter((a) => a.state === "open");
  const newest = [...open].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  return `${open.length} open and ${alerts.length - open.length} resolved regression alerts${newest ? `; newest: ${newest.title}` : ""}. Atom feeds per target and email subscriptions.`;
}
