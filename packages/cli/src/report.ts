/** @module What the CLI prints: live progress (a rewritten line on a TTY, plain lines otherwise) and the closing table. */

import { headlineWords, reportLines } from "@kneeboard/core/kinds";
import { figureHeading } from "@kneeboard/core/labels";
import { concurrencyOf, loadWords, type RunDocument } from "@kneeboard/core/run";
import type { SweepProgress } from "@kneeboard/core/sweep";

type Write = (text: string) => void;

/** A progress printer: on a TTY one line rewritten in place, otherwise one line per finished level. */
export function progressPrinter(write: Write, isTTY: boolean): (p: SweepProgress & { scenario?: string }) => void {
  return (p) => {
    const total = p.total === null ? "" : `/${p.total}`;
    const line = `${p.targetId} [${p.scenario ?? "chat"}]  level ${p.level}/${p.levelCount} (${loadWords(p.load)}${p.threads > 1 ? `, ${p.threads} threads` : ""})  requests ${p.done}${total}  ${p.liveTokensPerSecond.toFixed(1)} tok/s`;
    if (isTTY) write(`\r\x1b[2K${line}${p.levelDone ? "\n" : ""}`);
    else if (p.levelDone) write(`${line}\n`);
  };
}

const fixed = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined ? "-" : value.toFixed(digits);

/** The closing table of one run: level, aggregate tok/s, per-stream p50, TTFT p50/p95, errors. */
export function runTable(doc: RunDocument): string {
  const header = [
    "level",
    figureHeading("aggregateOutputTokensPerSecond"),
    figureHeading("perStreamOutputTokensPerSecondP50"),
    figureHeading("ttftP50Ms"),
    figureHeading("ttftP95Ms"),
    "errors",
    "valid",
  ];
  const rows = doc.levels.map((level) => {
    const r = level.requests;
    const errors = r.sent - r.ok;
    const detail = [
      r.rateLimited && `${r.rateLimited} 429`,
      r.routeMismatch && `${r.routeMismatch} route`,
      r.httpError && `${r.httpError} http`,
      r.timeout && `${r.timeout} timeout`,
      r.network && `${r.network} network`,
      r.incomplete && `${r.incomplete} incomplete`,
    ].filter(Boolean);
    return [
      loadWords(level.load),
      fixed(level.aggregateOutputTokensPerSecond),
      fixed(level.perStream.outputTokensPerSecond.p50),
      fixed(level.ttftMs.p50),
      fixed(level.ttftMs.p95),
      (errors ? `${errors}/${r.sent} (${detail.join(", ")})` : `0/${r.sent}`) +
        (level.rateLimitWaitMs > 0 ? `, waited ${(level.rateLimitWaitMs / 1000).toFixed(1)} s after 429s` : ""),
      level.valid ? "yes" : `no: ${level.invalidReasons.join("; ")}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padStart(widths[i] as number))).join("  ");
  const s = doc.summary;
  const title = `${doc.targetId} [${doc.scenario}]: ${doc.label}${doc.simulated ? "  [simulated]" : ""}  (${doc.status}${doc.partialReason ? `: ${doc.partialReason}` : ""})`;
  const peakAt = s.peak ? loadWords(s.peak.load) : "-";
  const percent = (share: number | null) => (share === null ? "-" : `${(share * 100).toFixed(1)} %`);
  const kneeRate = s.kneeRequestsPerSecond;
  const parts = {
    peak: `${fixed(s.peak?.aggregateOutputTokensPerSecond)} tok/s at ${peakAt}${s.peak?.window === "whole_level" ? " (whole level: no steady window)" : ""}`,
    // A ladder without N = 1 has no single-stream figure: it says so (plan and run warned of it).
    singleStream: doc.levels.some((l) => concurrencyOf(l.load) === 1)
      ? fixed(s.singleStream?.outputTokensPerSecond)
      : "not measured",
    kneeUsers: `${s.kneeConcurrency ?? (s.saturated ? "-" : "not reached")}`,
    kneeRate: kneeRate != null ? `${kneeRate} req/s` : s.saturated || kneeRate === undefined ? "-" : "not reached",
    scalingEfficiency: fixed(s.scalingEfficiency, 2),
    sustainsRate: `${s.capacityRequestsPerSecond ?? "-"}`,
    replayed: doc.trace,
    cached: doc.levels.map((l) => `${percent(l.cachedPromptTokenShare)} cached at ${loadWords(l.load)}`).join(", "),
  };
  // Each kind says its headline (single-stream and N, what an open loop sustains, a replay's reuse) and its levels' own lines.
  const first = doc.levels[0];
  // A run with no valid level has no figure to headline: it says so rather than print dashes.
  const headline =
    doc.status === "failed" || !first
      ? "no valid level completed: no single-stream, peak or knee figure"
      : headlineWords(first.load, parts);
  // The stop's words start with what happened: "rate-limited from N=8", "unreachable at N=1", "failing from N=2".
  const stopped = s.stop ? [`stopped: ${s.stop.detail}`] : [];
  return [
    title,
    format(header),
    ...rows.map(format),
    headline,
    ...searchLines(doc),
    ...doc.levels.flatMap(reportLines),
    ...stopped,
    "",
  ].join("\n");
}

/** A searched load's unit, by its axis. */
const SEARCH_UNITS: Record<NonNullable<RunDocument["summary"]["search"]>["axis"], string> = {
  concurrency: "users",
  rate: "req/s",
};

/**
 * A searched run's answer: capacity with its bracket, status and confidence, the knee with its bracket,
 * why the search stopped, and what it spent against the doubling ladder over the same range.
 */
export function searchLines(doc: RunDocument): string[] {
  const search = doc.summary.search;
  if (!search) return [];
  const unit = SEARCH_UNITS[search.axis];
  const bracket = (b: typeof search.capacity) =>
    `${b.value ?? "-"} in [${b.lo ?? "-"}, ${b.hi ?? "-"}] ${unit}, ${b.status.replace("_", " ")}`;
  const confidence = `${Math.round(search.confidence * 1000) / 10} %`;
  const requests = doc.samples.length;
  const saving = search.ladderRequests > 0 ? Math.round((1 - search.requests / search.ladderRequests) * 100) : null;
  const versus = saving === null ? "" : saving >= 0 ? ` (${saving} % fewer)` : ` (${-saving} % more)`;
  return [
    `searched capacity: ${bracket(search.capacity)}, at ${confidence} confidence a level; knee: ${bracket(search.knee)}`,
    `search stop: ${search.stop.reason}: ${search.stop.detail}`,
    `search spent: ${search.requests} requests (${requests} measured, warm-ups included in the first), ${search.outputTokens} output and ${search.promptTokens} prompt tokens; the doubling ladder ${search.from}..${search.to} sends ${search.ladderRequests}${versus}${search.budget === undefined ? "" : `; budget ${search.budget}`}`,
  ];
}
