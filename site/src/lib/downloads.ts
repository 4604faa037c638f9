/** @module The site's own downloads: `data/index.json` (targets, latest runs, history) and `data/runs.csv`. */
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import type { SiteData } from "./site-data.ts";

/** `data/index.json`: every target with its latest run's headline and per-level figures and its history. */
export function indexJson(data: SiteData): string {
  return JSON.stringify({
    schemaVersion: 1,
    generatedAt: data.generatedAt,
    simulated: data.targets.some((t) => t.simulated),
    targets: data.targets.map((t) => ({
      id: t.id,
      label: t.label,
      model: t.model,
      route: t.latest.route,
      simulated: t.simulated,
      latest: {
        key: t.latest.key,
        runId: t.latest.runId,
        startedAt: t.latest.startedAt,
        status: t.latest.status,
        partialReason: t.latest.partialReason,
        servedProviders: t.latest.servedProviders,
        summary: t.latest.summary,
        levels: t.latest.levels,
      },
      history: t.history,
    })),
  });
}

const CSV_COLUMNS = [
  "targetId",
  "runId",
  "startedAt",
  "status",
  "simulated",
  "model",
  "gateway",
  "pinnedProvider",
  "servedProviders",
  "runValid",
  "concurrency",
  "levelValid",
  "aggregateOutputTokensPerSecond",
  "perStreamOutputTokensPerSecondP50",
  "ttftP50Ms",
  "ttftP95Ms",
  "ttftP99Ms",
  "e2eP50Ms",
  "e2eP95Ms",
  "e2eP99Ms",
  "sent",
  "ok",
  "rateLimited",
] as const;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "number" ? String(Number(value.toFixed(3))) : String(value);
  // Quote when needed; a leading = + - @ is neutralised so spreadsheets do not run it as a formula.
  const safe = /^[=+\-@]/.test(text) && typeof value !== "number" ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** `data/runs.csv`: one row per run and level, oldest run first per target. */
export function runsCsv(entries: Iterable<RunIndexEntry>): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const e of entries) {
    for (const l of e.levels) {
      const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
        targetId: e.targetId,
        runId: e.runId,
        startedAt: e.startedAt,
        status: e.status,
        simulated: e.simulated,
        model: e.model,
        gateway: e.route.gateway,
        pinnedProvider: e.route.provider ?? null,
        servedProviders: e.servedProviders.join(" "),
        runValid: e.summary.valid,
        concurrency: l.concurrency,
        levelValid: l.valid,
        aggregateOutputTokensPerSecond: l.aggregateOutputTokensPerSecond,
        perStreamOutputTokensPerSecondP50: l.perStreamOutputTokensPerSecondP50,
        ttftP50Ms: l.ttftP50Ms,
        ttftP95Ms: l.ttftP95Ms,
        ttftP99Ms: l.ttftP99Ms,
        e2eP50Ms: l.e2eP50Ms,
        e2eP95Ms: l.e2eP95Ms,
        e2eP99Ms: l.e2eP99Ms,
        sent: l.sent,
        ok: l.ok,
        rateLimited: l.rateLimited,
      };
      lines.push(CSV_COLUMNS.map((c) => cell(row[c])).join(","));
    }
  }
  return `${lines.join("\n")}\n`;
}
