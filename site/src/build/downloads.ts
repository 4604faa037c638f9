/**
 * @module The site's own downloads: `data/index.json` (the scenarios and every model with its routes
 * and files), per model `data/models/<modelKey>/index.json` (its targets, standing, latest runs,
 * history) and `data/models/<modelKey>/runs.csv` (its every run and level, each row saying whether
 * it entered its target's standing), and `data/standing.csv` (the standing's estimates, one row per
 * target and level). Split per model so a publish after one sweep rewrites one model's files.
 */
import { type Load, loadPosition, type SearchRecord, type Summary, sameLoad } from "@kneeboard/core/run";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import type { Estimate, Standing } from "@kneeboard/core/standing";
import { KINDS, type KindedLevel, kindOf, type LoadCells, viewOf } from "../kinds/index.ts";
import { targetModelKey } from "../lib/models.ts";
import { type SiteData, type TargetView, viewsOf } from "../lib/site-data.ts";
import type { ToolCallsView } from "../lib/tool-calls.ts";

/**
 * A route's tool calls in `index.json`: its latest tool-call run's support, the verdict against the
 * reference (null before one), the schema-valid and right-tool shares the leaderboard and the verdict
 * read, every share, the trigger F1 and the exact call F1 against the reference and the verdict's reason; null when the route
 * has no tool-call run.
 */
export function toolCallsJson(tc: ToolCallsView | null) {
  if (!tc) return null;
  return {
    runId: tc.runId,
    suite: tc.suite,
    support: tc.support,
    verdict: tc.verdict?.verdict ?? null,
    schemaValid: tc.shares.argumentsValid,
    rightTool: tc.shares.rightTool,
    shares: tc.shares,
    triggerF1: tc.verdict?.triggerF1 ?? null,
    exactCallF1: tc.verdict?.exactCallF1 ?? null,
    reason: tc.verdict?.reason ?? null,
  };
}

/** One (target, scenario) of `data/index.json`: its standing, its latest run's headline and per-level figures, and its history. */
export function indexJsonView(t: TargetView) {
  return {
    id: t.id,
    scenario: t.scenario,
    label: t.label,
    model: t.model,
    modelKey: targetModelKey(t),
    route: t.latest.route,
    simulated: t.simulated,
    standing: t.standing,
    /** Same model as the reference route? `{ reference, verdict, pValue, reason, samples, ... }`; null before a judged canary. */
    sameModel: t.sameModel,
    /** Tool calls (`toolCallsJson`): `{ support, verdict, schemaValid, rightTool, shares, triggerF1, exactCallF1, reason, ... }`; null when not measured. */
    toolCalls: toolCallsJson(t.toolCalls),
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
    /** The capacity bracket the leaderboard shows (`{ kind, lo, hi, confidence }`, in users or requests/s); null for a kind without a capacity. */
    capacityBracket: viewOf(t).capacityBracket(t),
    /** The latest run's search in the columns `runs.csv` gives it (its capacity bracket, `SEARCH_COLUMNS`); null for a ladder. */
    search: t.latest.summary.search
      ? { ...capacityCells(t.latest.summary), ...searchCells(t.latest.summary.search) }
      : null,
  };
}

/** Where a model's downloads are: its `index.json` and its `runs.csv`. */
export function modelFiles(modelKey: string): { index: string; runs: string } {
  return { index: `data/models/${modelKey}/index.json`, runs: `data/models/${modelKey}/runs.csv` };
}

/** One model in the top `data/index.json`: its name, its routes and its files. */
export interface IndexModel {
  modelKey: string;
  model: string;
  targetIds: string[];
}

/** `data/index.json`: the scenarios, and every model with its routes and the paths of its files. */
export function topIndexJson(
  data: Pick<SiteData, "generatedAt" | "scenarios">,
  simulated: boolean,
  models: readonly IndexModel[],
): string {
  return JSON.stringify({
    /** 3: the views moved to one file per model (`models[].index`); 2 held them here. */
    schemaVersion: 3,
    generatedAt: data.generatedAt,
    simulated,
    scenarios: data.scenarios,
    models: models.map((m) => ({ ...m, ...modelFiles(m.modelKey) })),
  });
}

/** A model's `index.json` around its views: `views` stands where the views go (the build writes them one series at a time). */
export function indexJsonFrame(
  data: Pick<SiteData, "generatedAt" | "scenarios">,
  simulated: boolean,
  modelKey: string | null,
): { head: string; between: string; tail: string } {
  // The views are the last two fields: what comes before them is the shape with both empty.
  const whole = JSON.stringify(indexJsonShape(data, simulated, modelKey, [], []));
  const end = ',"targets":[],"series":[]}';
  if (!whole.endsWith(end)) throw new Error("index.json: targets and series must be its last fields");
  return { head: `${whole.slice(0, -end.length)},"targets":[`, between: '],"series":[', tail: "]}" };
}

/**
 * A model's `index.json` (`data/models/<modelKey>/index.json`): each of its targets with its standing,
 * its latest run's headline and per-level figures, and its history; without a model key, every target's.
 */
export function indexJson(data: SiteData, modelKey: string | null = null): string {
  const first = data.scenarios[0] ?? "chat";
  const series = modelKey === null ? data.series : data.series.filter((t) => targetModelKey(t) === modelKey);
  return JSON.stringify(
    indexJsonShape(
      data,
      series.some((t) => t.simulated),
      modelKey,
      viewsOf(series, first).map(indexJsonView),
      series.filter((t) => t.scenario !== first).map(indexJsonView),
    ),
  );
}

function indexJsonShape(
  data: Pick<SiteData, "generatedAt" | "scenarios">,
  simulated: boolean,
  modelKey: string | null,
  targets: unknown[],
  series: unknown[],
) {
  return {
    /** 2: levels, peaks and standing levels name their `load`, as run documents of version 2 do (1 had `concurrency`). */
    schemaVersion: 2,
    generatedAt: data.generatedAt,
    simulated,
    /** Every scenario, the site's first (ranked at `/`) first. */
    scenarios: data.scenarios,
    /** The model whose targets these are. */
    ...(modelKey === null ? {} : { modelKey }),
    /** The first scenario's targets, each with its `scenario`. */
    targets,
    /** Every other (target, scenario), in the same shape. */
    series,
  };
}

/**
 * A run's capacity bracket as download columns (docs/run-document.md): how it was found (`ladder` or
 * `searched`), its ends in the capacity's unit (users, or requests/s) and a search's confidence. A
 * ladder's is `[lo, hi)`, a search's `[lo, hi]`. Empty (null) for a kind without a capacity (a trace
 * replay) and for a ladder run recorded before brackets.
 */
const CAPACITY_COLUMNS = ["capacity_kind", "capacity_lo", "capacity_hi", "capacity_confidence"] as const;
type CapacityCells = Record<(typeof CAPACITY_COLUMNS)[number], number | string | null>;

/** A run's capacity bracket: the summary's, else (a searched run recorded before brackets) its search's. */
function capacityCells(summary: Summary): CapacityCells {
  const search = summary.search;
  const b =
    summary.capacityBracket ??
    (search
      ? { kind: "searched", lo: search.capacity.lo, hi: search.capacity.hi, confidence: search.confidence }
      : null);
  return {
    capacity_kind: b?.kind ?? null,
    capacity_lo: b?.lo ?? null,
    capacity_hi: b?.hi ?? null,
    capacity_confidence: b?.confidence ?? null,
  };
}

/**
 * A searched run's search as download columns (docs/site.md): how the capacity search ended, the
 * knee's bracket, and the requests it sent against those of the ladder it replaced. Empty (null) for a
 * run that walked a ladder.
 */
const SEARCH_COLUMNS = ["capacity_status", "knee_lo", "knee_hi", "search_requests", "search_ladder_requests"] as const;
type SearchCells = Record<(typeof SEARCH_COLUMNS)[number], number | string | null>;

/** A run's search as its columns; every cell null for a ladder. */
function searchCells(search: SearchRecord | null | undefined): SearchCells {
  return {
    capacity_status: search?.capacity.status ?? null,
    knee_lo: search?.knee.lo ?? null,
    knee_hi: search?.knee.hi ?? null,
    search_requests: search?.requests ?? null,
    search_ladder_requests: search?.ladderRequests ?? null,
  };
}

export const CSV_COLUMNS = [
  "targetId",
  "scenario",
  "runId",
  "startedAt",
  "status",
  "simulated",
  "model",
  "gateway",
  "pinnedProvider",
  "servedProviders",
  "runValid",
  "level",
  "loadKind",
  "concurrency",
  "ratePerSecond",
  "burstiness",
  "speedup",
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
  "goodputOutputTokensPerSecond",
  "cachedPromptTokenShare",
  "reusablePromptTokenShare",
  "laterTurnsTtftP50Ms",
  "invalidReasons",
  "inStanding",
  "tool_calls_support",
  "tool_calls_schema_valid_share",
  "tool_calls_right_tool_share",
  "tool_calls_verdict",
  "probe_order",
  "probe_decision",
  ...CAPACITY_COLUMNS,
  ...SEARCH_COLUMNS,
] as const;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  // A number never needs quoting nor neutralising (a minus sign is its own): the fast path of millions of cells.
  if (typeof value === "number") return String(Number(value.toFixed(3)));
  const text = String(value);
  // Quote when needed; a leading = + - @ is neutralised so spreadsheets do not run it as a formula.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * A model's `runs.csv`: one row per run and level, oldest run first per target. `inStanding` is true on
 * the rows whose figures entered the target's standing (its run is in the standing and the level is
 * valid), so the standing's medians can be recomputed from this file. The `tool_calls_` columns are
 * the run's (its tool-call phase's support, schema-valid and right-tool shares, and the verdict on
 * it), repeated on each of its levels' rows, empty where the run had none.
 */
export function runsCsv(entries: Iterable<RunIndexEntry>, standings: Iterable<Standing> = []): string {
  return `${CSV_COLUMNS.join(",")}\n${runsCsvRows(entries, standings)}`;
}

/** The rows of `runsCsv` without its header, each line ended: the build appends one target's at a time. */
export function runsCsvRows(entries: Iterable<RunIndexEntry>, standings: Iterable<Standing> = []): string {
  const lines: string[] = [];
  const standingRuns = new Set<string>();
  for (const s of standings) for (const runId of s.runIds) standingRuns.add(`${s.targetId}\n${s.scenario}\n${runId}`);
  for (const e of entries) {
    const inStanding = standingRuns.has(`${e.targetId}\n${e.scenario}\n${e.runId}`);
    const tools = {
      tool_calls_support: e.toolCalls?.support ?? null,
      tool_calls_schema_valid_share: e.toolCalls?.shares.argumentsValid.share ?? null,
      tool_calls_right_tool_share: e.toolCalls?.shares.rightTool.share ?? null,
      tool_calls_verdict: e.toolCallsVerdict?.verdict ?? null,
    };
    const capacity = capacityCells(e.summary);
    const search = searchCells(e.summary.search);
    for (const l of e.levels) {
      const row: Record<(typeof CSV_COLUMNS)[number], unknown> = {
        targetId: e.targetId,
        scenario: e.scenario,
        runId: e.runId,
        startedAt: e.startedAt,
        status: e.status,
        simulated: e.simulated,
        model: e.model,
        gateway: e.route.gateway,
        pinnedProvider: e.route.provider ?? null,
        servedProviders: e.servedProviders.join(" "),
        runValid: e.summary.valid,
        level: l.level,
        ...loadCells(l),
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
        goodputOutputTokensPerSecond: l.goodputOutputTokensPerSecond,
        cachedPromptTokenShare: l.cachedPromptTokenShare,
        reusablePromptTokenShare: l.reusablePromptTokenShare,
        laterTurnsTtftP50Ms: l.laterTurnsTtftP50Ms,
        invalidReasons: l.invalidReasons.join("; "),
        inStanding: inStanding && l.valid,
        ...tools,
        probe_order: l.probe?.order ?? null,
        probe_decision: l.probe?.decision ?? null,
        ...capacity,
        ...search,
      };
      lines.push(`${CSV_COLUMNS.map((c) => cell(row[c])).join(",")}\n`);
    }
  }
  return lines.join("");
}

const STANDING_FIGURES = [
  "aggregateOutputTokensPerSecond",
  "perStreamOutputTokensPerSecondP50",
  "ttftP50Ms",
  "ttftP95Ms",
  "goodputOutputTokensPerSecond",
] as const;

const STANDING_COLUMNS = [
  "targetId",
  "scenario",
  "windowEnd",
  "runs",
  "level",
  "loadKind",
  "concurrency",
  "ratePerSecond",
  "burstiness",
  "speedup",
  "validRuns",
  "invalidRuns",
  "ranked",
  "isPeak",
  "isKnee",
  "isCapacity",
  ...STANDING_FIGURES.flatMap((f) => [`${f}Median`, `${f}Low`, `${f}High`, `${f}N`]),
  "invalidReasons",
];

/**
 * A level's load as CSV cells: its kind as the run document names it, then the cells its kind fills
 * (`KindView.csv`: a closed loop's N in `concurrency`, an open loop's offered rate in `ratePerSecond`
 * and gamma arrivals' `burstiness`, a trace replay's `speedup`), each empty where the kind has none.
 */
function loadCells(level: KindedLevel): { loadKind: Load["kind"] } & LoadCells {
  const cells = KINDS[kindOf(level)].csv(level.load);
  return {
    loadKind: level.load.kind,
    concurrency: cells.concurrency,
    ratePerSecond: cells.ratePerSecond,
    burstiness: cells.burstiness,
    speedup: cells.speedup,
  };
}

/** True when a standing's figure (its peak, its capacity) sits at level l: the same load. */
function isAt(figure: { load: Load } | null, l: { load: Load }): boolean {
  return figure !== null && sameLoad(figure.load, l.load);
}

/**
 * `data/standing.csv`: one row per target and level of its standing: each figure's median, the
 * interval bounding it (low, high) and the runs it was taken over (n), and which level is the peak,
 * knee and capacity of the median curve.
 */
export function standingCsv(standings: Iterable<Standing>): string {
  const lines = [STANDING_COLUMNS.join(",")];
  for (const s of standings) {
    for (const l of s.levels) {
      const estimateCells = STANDING_FIGURES.flatMap((f) => {
        const e: Estimate | null = l[f];
        return e ? [e.median, e.low, e.high, e.n] : [null, null, null, 0];
      });
      const row = [
        s.targetId,
        s.scenario,
        s.window.now,
        s.runIds.length,
        l.level,
        ...Object.values(loadCells(l)),
        l.validRuns,
        l.invalidRuns,
        l.ranked,
        isAt(s.peak, l),
        KINDS[kindOf(l)].knee(s) === loadPosition(l.load),
        isAt(s.capacity, l),
        ...estimateCells,
        l.invalidReasons.join("; "),
      ];
      lines.push(row.map(cell).join(","));
    }
  }
  return `${lines.join("\n")}\n`;
}
