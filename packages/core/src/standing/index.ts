/**
 * @module Standing: the figures a reader sees, taken over a target's valid complete runs in the
 * standing window instead of its latest run alone. Pure functions over run index entries, so the
 * site, `index.json` and the functions share one implementation.
 *
 * Each figure is an estimate `{ median, low, high, n }`: the median over n runs, and a
 * distribution-free interval for it from order statistics (see `medianInterval`).
 */
import { z } from "zod";
import { DEFAULT_STANDING, type StandingConfig } from "../config/index.ts";
import { STANDING_FIELDS, standingFields, summaryUnits } from "../kinds/index.ts";
import { DEFAULT_SLO, kneeIndex, withinTtftLimit } from "../metrics/index.ts";
import { type Bracket, concurrencyOf, Load, loadAxis, loadPosition, SearchRecord, sameLoad } from "../run/index.ts";
import { bySeries, type LevelFigures, type RunIndexEntry } from "../run-index/index.ts";
import { entersStanding, newestFirst } from "../run-index/summary.ts";
import { Estimate, estimate, medianOfSorted } from "../stats/median.ts";

export {
  Estimate,
  estimate,
  MEDIAN_CONFIDENCE,
  medianIntervalRank,
  medianOfSorted,
  orderStatisticCoverage,
} from "../stats/median.ts";

/** What one interactive user needs; it defines capacity. */
export interface Slo {
  /** Per-stream output tok/s (p50) at least this. */
  minOutputTokensPerSecond: number;
  /** TTFT p95 at most this, ms; null: no TTFT limit. */
  maxTtftMs: number | null;
}

/** The SLO a run is judged by unless the config names one: the one the metrics define. */
export { DEFAULT_SLO };

/** A level of the standing's curve: its number in the newest run that offered its load, and that load. */
const LevelRef = {
  /** The level's number in the newest run of the standing that offered its load, 1-based. */
  level: z.number().int().positive(),
  /** The load the level is keyed by (a concurrency, or an open loop's offered rate). */
  load: Load,
};

/** One level (one load: a concurrency, or an open loop's offered rate) over the standing's runs. */
export const StandingLevel = z.object({
  ...LevelRef,
  /** Runs of the standing in which this level was valid: their values enter the estimates below. */
  validRuns: z.number().int().nonnegative(),
  /** Runs of the standing in which this level ran and was invalid. */
  invalidRuns: z.number().int().nonnegative(),
  /** True when the level was valid in at least half of the standing's runs: only then may it give the peak, knee or capacity. */
  ranked: z.boolean(),
  /** Why the level was invalid, from its newest invalid run; empty when it never was. */
  invalidReasons: z.array(z.string()),
  aggregateOutputTokensPerSecond: Estimate.nullable(),
  perStreamOutputTokensPerSecondP50: Estimate.nullable(),
  ttftP50Ms: Estimate.nullable(),
  ttftP95Ms: Estimate.nullable(),
  goodputOutputTokensPerSecond: Estimate.nullable(),
  /**
   * The medians over its valid runs of the SLO's figures (a failed request counted as a miss: TTFT
   * +Infinity, 0 tok/s) meet the SLO; runs recorded before those figures enter with their ok requests'
   * p50 and p95. Null when no valid run gave both.
   */
  meetsSlo: z.boolean().nullable().default(null),
  /** Each kind's own fields over the level's valid runs (a conversation's later turns, its cache verdict), null on other kinds' levels (`STANDING_FIELDS`). */
  ...STANDING_FIELDS,
});
export type StandingLevel = z.infer<typeof StandingLevel>;

/**
 * A searched figure (capacity or knee) over the standing's searched runs: searched runs probe
 * different loads, so their levels do not line up and the median curve cannot give it; each run's
 * own searched value enters instead.
 */
export const SearchedEstimate = z.object({
  /**
   * The median of the runs' searched values (users, or requests/s) and its order-statistic interval,
   * as `estimate` gives for any figure; a capacity below the search's `from` counts as 0 (nothing met
   * the SLO). Null when no run gave a value (every bracket undecided or not reached).
   */
  estimate: Estimate.nullable(),
  /** The standing's runs that searched. */
  runs: z.number().int().nonnegative(),
  /** Of those, runs whose bracket was found to the resolution. */
  found: z.number().int().nonnegative(),
  /** Of those, runs whose bracket stayed undecided at the boundary (a level at its request cap). */
  undecided: z.number().int().nonnegative(),
});
export type SearchedEstimate = z.infer<typeof SearchedEstimate>;

/** A searched series' capacity and knee over its runs (docs/methodology.md#searched-levels). */
export const StandingSearch = z.object({
  /** The axis searched, as the newest searched run's `summary.search.axis`: users, or requests/s. */
  axis: SearchRecord.shape.axis,
  capacity: SearchedEstimate,
  knee: SearchedEstimate,
});
export type StandingSearch = z.infer<typeof StandingSearch>;

/** A (target, scenario)'s standing: which runs it is taken over, its per-level estimates, and what the median curve shows. */
export const Standing = z.object({
  targetId: z.string(),
  /** The scenario whose runs it is taken over. */
  scenario: z.string().default("chat"),
  /** The window it was taken over and the time it ends at (ISO 8601). */
  window: z.object({ windowHours: z.number(), maxRuns: z.number(), now: z.string() }),
  /** The runs that entered, newest first. */
  runIds: z.array(z.string()),
  /** Started times of the oldest and newest run that entered; null when none did. */
  oldestStartedAt: z.string().nullable(),
  newestStartedAt: z.string().nullable(),
  /** True when no valid run fell in the window and the latest valid run, older, stands in. */
  beyondWindow: z.boolean(),
  levels: z.array(StandingLevel),
  /** Level 1's per-stream output tok/s (p50) and TTFT p50; null without a valid level 1, and for an open loop. */
  singleStream: z.object({ outputTokensPerSecond: Estimate.nullable(), ttftP50Ms: Estimate.nullable() }).nullable(),
  /** The ranked level with the highest median aggregate tok/s. */
  peak: z
    .object({
      ...LevelRef,
      aggregateOutputTokensPerSecond: Estimate,
      perStreamOutputTokensPerSecond: Estimate.nullable(),
    })
    .nullable(),
  /** The knee of the median aggregate curve (same rule as a run's); null when not saturated, and for an open loop. */
  kneeConcurrency: z.number().int().positive().nullable(),
  /** Open loop only: the knee of the median aggregate curve against offered rate, requests/s; null when not saturated. */
  kneeRequestsPerSecond: z.number().positive().nullable().optional(),
  saturated: z.boolean(),
  /** Median aggregate at the peak / (N_peak x median aggregate at level 1); null for an open loop. */
  scalingEfficiency: z.number().nullable(),
  /**
   * The highest ranked level whose medians meet the SLO (its `meetsSlo`, failed requests counted as
   * misses): "serves N users at once", or for an open loop
   * "sustains R requests/s at the SLO"; null when none does.
   */
  capacity: z.object(LevelRef).nullable(),
  slo: z.object({ minOutputTokensPerSecond: z.number(), maxTtftMs: z.number().nullable() }),
  /**
   * Where the standing's runs searched their levels: capacity and knee over those runs, each the
   * median of the runs' searched values with its interval (`capacity` and the knee above are read off
   * a median curve whose levels differ run to run, so a reader takes these); null for a ladder, and
   * in standings written before searches.
   */
  search: StandingSearch.nullable().default(null),
});
export type Standing = z.infer<typeof Standing>;

// ---------------------------------------------------------------------------------------------
// Which runs enter

export { entersStanding };

/**
 * One target's runs that enter its standing at `now`, newest first: its valid complete runs started
 * in the `windowHours` before `now` (runs started after `now` are not counted), at most `maxRuns` of
 * the newest; when none is in the window, the latest valid complete run however old.
 */
export function standingRuns(
  entries: readonly RunIndexEntry[],
  now: string,
  config: StandingConfig = DEFAULT_STANDING,
): { runs: RunIndexEntry[]; beyondWindow: boolean } {
  const nowMs = Date.parse(now);
  const fromMs = nowMs - config.windowHours * 3_600_000;
  const eligible = entries.filter((e) => entersStanding(e) && Date.parse(e.startedAt) <= nowMs).sort(newestFirst);
  const inWindow = eligible.filter((e) => Date.parse(e.startedAt) >= fromMs).slice(0, config.maxRuns);
  if (inWindow.length > 0 || eligible.length === 0) return { runs: inWindow, beyondWindow: false };
  return { runs: eligible.slice(0, 1), beyondWindow: true };
}

// ---------------------------------------------------------------------------------------------
// Estimates per level, and what the median curve shows

const LEVEL_FIGURES = [
  "aggregateOutputTokensPerSecond",
  "perStreamOutputTokensPerSecondP50",
  "ttftP50Ms",
  "ttftP95Ms",
  "goodputOutputTokensPerSecond",
] as const satisfies readonly (keyof LevelFigures)[];

function levelOf(load: Load, runs: readonly RunIndexEntry[], slo: Slo): StandingLevel {
  const valid: LevelFigures[] = [];
  let invalidRuns = 0;
  let invalidReasons: string[] = [];
  let number: number | undefined;
  for (const run of runs) {
    const level = run.levels.find((l) => sameLoad(l.load, load));
    if (!level) continue;
    // Runs come newest first: a level is named by its number in the newest run offering its load.
    number ??= level.level;
    if (level.valid) valid.push(level);
    else {
      // Runs come newest first: the first invalid one met gives the reasons shown.
      if (invalidRuns === 0) invalidReasons = level.invalidReasons.length ? level.invalidReasons : ["invalid"];
      invalidRuns++;
    }
  }
  const values = (figure: (typeof LEVEL_FIGURES)[number]) =>
    estimate(valid.map((l) => l[figure]).filter((v): v is number => v !== null));
  return {
    level: number ?? 1,
    load,
    validRuns: valid.length,
    invalidRuns,
    ranked: valid.length > 0 && 2 * valid.length >= runs.length,
    invalidReasons,
    aggregateOutputTokensPerSecond: values("aggregateOutputTokensPerSecond"),
    perStreamOutputTokensPerSecondP50: values("perStreamOutputTokensPerSecondP50"),
    ttftP50Ms: values("ttftP50Ms"),
    ttftP95Ms: values("ttftP95Ms"),
    goodputOutputTokensPerSecond: values("goodputOutputTokensPerSecond"),
    meetsSlo: mediansMeetSlo(valid, slo),
    ...standingFields(load, valid),
  };
}

/**
 * Whether the medians over runs of a level's SLO figures meet the SLO: per-stream p50 (a failed request
 * as 0 tok/s) and TTFT p95 (a p95 on a failed request as +Infinity); an entry recorded before those
 * figures gives its ok requests' p50 and p95. Null when no run gives both.
 */
function mediansMeetSlo(valid: readonly LevelFigures[], slo: Slo): boolean | null {
  const perStream: number[] = [];
  const ttft: number[] = [];
  for (const l of valid) {
    const f = l.sloFigures;
    const p50 = f ? f.perStreamOutputTokensPerSecondP50 : l.perStreamOutputTokensPerSecondP50;
    const p95 = f ? (f.ttftP95Ms ?? Number.POSITIVE_INFINITY) : l.ttftP95Ms;
    if (p50 === null || p95 === null) continue;
    perStream.push(p50);
    ttft.push(p95);
  }
  if (perStream.length === 0) return null;
  const median = (xs: number[]) => medianOfSorted(xs.sort((a, b) => a - b));
  return median(perStream) >= slo.minOutputTokensPerSecond && withinTtftLimit(slo, median(ttft));
}

/**
 * The knee of a curve in ascending load (concurrency, or an open loop's offered rate), by the run
 * summary's rule (`kneeIndex`): the first point no higher point out-raises by more than the threshold.
 */
export function kneeOf(curve: readonly { at: number; aggregate: number }[]): {
  knee: number | null;
  saturated: boolean;
} {
  const i = kneeIndex(curve.map((p) => p.aggregate));
  return i === null ? { knee: null, saturated: false } : { knee: (curve[i] as { at: number }).at, saturated: true };
}

/**
 * A searched figure over runs' brackets: the median of their values with its interval, and how many
 * were found or undecided. A capacity bracket below `from` has no value but a meaning, nothing met the
 * SLO, so it counts as 0 (as an open loop's ladder counts a run in which no rate met it); any other
 * bracket without a value (undecided at the lowest load, not reached) gives none.
 */
export function searchedEstimate(brackets: readonly Bracket[], belowFromIsZero: boolean): SearchedEstimate {
  const values = brackets.flatMap((b) =>
    b.value !== null ? [b.value] : belowFromIsZero && b.status === "below_from" ? [0] : [],
  );
  return {
    estimate: estimate(values),
    runs: brackets.length,
    found: brackets.filter((b) => b.status === "found").length,
    undecided: brackets.filter((b) => b.status === "undecided").length,
  };
}

/** Capacity and knee over the runs that searched (newest first); null when none did. */
export function standingSearch(runs: readonly RunIndexEntry[]): StandingSearch | null {
  const searches = runs.flatMap((r) => (r.summary.search ? [r.summary.search] : []));
  const newest = searches[0];
  if (newest === undefined) return null;
  return {
    axis: newest.axis,
    capacity: searchedEstimate(
      searches.map((s) => s.capacity),
      true,
    ),
    knee: searchedEstimate(
      searches.map((s) => s.knee),
      false,
    ),
  };
}

export interface StandingOptions {
  /** The end of the window (ISO 8601), usually the build's time. */
  now: string;
  config?: StandingConfig;
  slo?: Slo;
  /** The scenario of the entries (default `chat`). */
  scenario?: string;
}

/**
 * The standing of one (target, scenario) from its index entries (any order; other targets' or
 * scenarios' entries must not be mixed in).
 *
 * Levels are keyed by load and laid along its axis (`loadPosition`). An open loop (its newest run's
 * levels are open) is keyed by rate: its knee is `kneeRequestsPerSecond` (`kneeConcurrency` null), and
 * it has no single stream or scaling efficiency; a trace replay is keyed by speedup, with no knee.
 * Only runs on the newest run's axis enter (a scenario that changed its arrivals starts its standing again).
 */
export function standingOf(targetId: string, entries: readonly RunIndexEntry[], options: StandingOptions): Standing {
  const config = options.config ?? DEFAULT_STANDING;
  const slo = options.slo ?? DEFAULT_SLO;
  const window = standingRuns(entries, options.now, config);
  const { beyondWindow } = window;
  // A run's axis is its levels' (a run's levels share one kind): concurrency, rate, or a replay's speedup.
  const axisOf = (r: RunIndexEntry) => (r.levels[0] ? loadAxis(r.levels[0].load) : "concurrency");
  const axis = window.runs[0] !== undefined ? axisOf(window.runs[0]) : "concurrency";
  const runs = window.runs.filter((r) => axisOf(r) === axis);
  const first = runs[0]?.levels[0];
  const kneeUnit = first ? summaryUnits(first.load).knee : "kneeConcurrency";
  const ladder = new Map<string, Load>();
  for (const r of runs) for (const l of r.levels) ladder.set(`${l.load.kind} ${loadPosition(l.load)}`, l.load);
  const levels = [...ladder.values()]
    .sort((a, b) => loadPosition(a) - loadPosition(b))
    .map((load) => levelOf(load, runs, slo));
  const load = (l: StandingLevel) => loadPosition(l.load);

  const curve = levels.filter(
    (l): l is StandingLevel & { aggregateOutputTokensPerSecond: Estimate } =>
      l.ranked && l.aggregateOutputTokensPerSecond !== null,
  );
  let peakLevel: (typeof curve)[number] | undefined;
  for (const l of curve)
    if (!peakLevel || l.aggregateOutputTokensPerSecond.median > peakLevel.aggregateOutputTokensPerSecond.median)
      peakLevel = l;
  const { knee, saturated } = kneeOf(
    curve.map((l) => ({ at: load(l), aggregate: l.aggregateOutputTokensPerSecond.median })),
  );

  // One user alone: N = 1 (an open loop's first level is a rate, not one user).
  const single = levels.find((l) => concurrencyOf(l.load) === 1 && l.validRuns > 0);
  const singleAggregate = single?.aggregateOutputTokensPerSecond?.median ?? null;
  const peakUsers = peakLevel ? concurrencyOf(peakLevel.load) : null;
  const scalingEfficiency =
    peakLevel && peakUsers !== null && singleAggregate !== null && singleAggregate > 0
      ? peakLevel.aggregateOutputTokensPerSecond.median / (peakUsers * singleAggregate)
      : null;

  let capacity: Standing["capacity"] = null;
  for (const l of levels) if (l.ranked && l.meetsSlo === true) capacity = { level: l.level, load: l.load };

  return {
    targetId,
    scenario: options.scenario ?? "chat",
    window: { windowHours: config.windowHours, maxRuns: config.maxRuns, now: options.now },
    runIds: runs.map((r) => r.runId),
    oldestStartedAt: runs.at(-1)?.startedAt ?? null,
    newestStartedAt: runs[0]?.startedAt ?? null,
    beyondWindow,
    levels,
    singleStream: single
      ? { outputTokensPerSecond: single.perStreamOutputTokensPerSecondP50, ttftP50Ms: single.ttftP50Ms }
      : null,
    peak: peakLevel
      ? {
          level: peakLevel.level,
          load: peakLevel.load,
          aggregateOutputTokensPerSecond: peakLevel.aggregateOutputTokensPerSecond,
          perStreamOutputTokensPerSecond: peakLevel.perStreamOutputTokensPerSecondP50,
        }
      : null,
    // A knee in its kind's unit: users, or an open loop's requests/s; a replay's speedup knee is neither.
    kneeConcurrency: kneeUnit === "kneeConcurrency" ? knee : null,
    ...(kneeUnit === "kneeRequestsPerSecond" ? { kneeRequestsPerSecond: knee } : {}),
    saturated,
    scalingEfficiency,
    capacity,
    slo: { ...slo },
    search: standingSearch(runs),
  };
}

/** The standing of every (target, scenario) in entries, by `seriesKey` (the target id for `chat`). */
export function standings(entries: readonly RunIndexEntry[], options: StandingOptions): Map<string, Standing> {
  return new Map(
    [...bySeries(entries)].map(([key, list]) => {
      const { targetId, scenario } = list[0] as RunIndexEntry;
      return [key, standingOf(targetId, list, { ...options, scenario })];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Ranks

/**
 * Ranks by an estimate: a target's rank is 1 + the number of targets whose interval lies wholly
 * better than its own (above it, or below it when lower is better). Targets whose intervals overlap
 * are never ranked apart by noise: with no third target between them, they share a rank. A target
 * without an estimate has no rank (null).
 */
export function ranksBy(
  items: readonly { id: string; estimate: Estimate | null }[],
  direction: "higher" | "lower" = "higher",
): Map<string, number | null> {
  const better = (a: Estimate, b: Estimate) => (direction === "higher" ? a.low > b.high : a.high < b.low);
  const ranked = items.filter((i): i is { id: string; estimate: Estimate } => i.estimate !== null);
  const out = new Map<string, number | null>();
  for (const item of items) {
    const own = item.estimate;
    out.set(item.id, own === null ? null : 1 + ranked.filter((o) => better(o.estimate, own)).length);
  }
  return out;
}

/** `=2` when another target holds the same rank, `2` when none does, an em dash when there is no rank. */
export function rankLabel(rank: number | null, all: Iterable<number | null>): string {
  if (rank === null) return "—";
  let holders = 0;
  for (const r of all) if (r === rank) holders++;
  return holders > 1 ? `=${rank}` : String(rank);
}
