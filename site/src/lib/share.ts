/**
 * @module What a pasted link says: each page's title and description state its headline figures
 * with the concurrency they were measured at ("X: 410 tok/s alone, 1,261 tok/s at 8 users"). What
 * other load kinds say is in their modules (`src/kinds/`).
 */
import type { Alert } from "@kneeboard/core/alerts";
import { concurrencyOf } from "@kneeboard/core/run";
import { fmt } from "./format.ts";
import type { TargetView } from "./site-data.ts";

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
    atConcurrency: s.peak ? concurrencyOf(s.peak.load) : null,
  };
}

/** The label with "(simulated)" after it for a simulated target, unless the label already says so. */
export function simulatedLabel(label: string, simulated: boolean): string {
  return simulated && !/\(simulated\)\s*$/i.test(label) ? `${label} (simulated)` : label;
}

/** "1 user", "8 users". */
export const users = (n: number) => `${fmt(n)} ${n === 1 ? "user" : "users"}`;

/** "Label: 410 tok/s alone, 1,261 tok/s at 8 users" (parts without a figure are left out). */
export function headline(f: HeadlineFigures): string {
  const parts: string[] = [];
  if (f.aloneTokensPerSecond !== null) parts.push(`${fmt(f.aloneTokensPerSecond)} tok/s alone`);
  if (f.concurrentTokensPerSecond !== null && f.atConcurrency !== null)
    parts.push(`${fmt(f.concurrentTokensPerSecond)} tok/s at ${users(f.atConcurrency)}`);
  const label = simulatedLabel(f.label, f.simulated);
  return parts.length ? `${label}: ${parts.join(", ")}` : `${label}: no figures yet`;
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

/** The alerts page's description: how many are open, and the newest. */
export function alertsDescription(alerts: Alert[]): string {
  const open = alerts.filter((a) => a.state === "open");
  const newest = [...open].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  return `${open.length} open and ${alerts.length - open.length} resolved regression alerts${newest ? `; newest: ${newest.title}` : ""}. Atom feeds per target and email subscriptions.`;
}
