/**
 * @module A scenario's rankings as data: one table per load axis its targets run on, each table its
 * columns and its rows of cells, so one component (`Ranking.astro`) draws any of them. The axes'
 * tables live in `RANKINGS`: a load kind with a new axis adds an entry there, never a component.
 * Closed loops (concurrency) lead: their single-stream and concurrent figures are what the site
 * exists to show, whatever else a scenario holds.
 */

import { DEFAULT_SLO } from "@kneeboard/core/config";
import { type CacheVerdict, concurrencyOf, type LoadAxis, loadPosition, sameLoad } from "@kneeboard/core/run";
import type { Estimate, Slo } from "@kneeboard/core/standing";
import { rankLabel, ranksBy } from "@kneeboard/core/standing";
import { pct, when } from "./format.ts";
import { leaderboardRows, type RankedGroup, rankedGroups, TREND_RUNS } from "./leaderboard.ts";
import { sloWords, targetModelKey } from "./models.ts";
import { rateRows } from "./open-loop.ts";
import { type SameModelWords, sameModelWords } from "./same-model.ts";
import { type TargetView, viewAxis } from "./site-data.ts";
import { sparkline } from "./sparkline.ts";

/** One cell of a ranking row. */
export type Cell =
  | { kind: "rank"; label: string; value: number | null }
  | { kind: "target"; target: TargetCell }
  | { kind: "estimate"; estimate: Estimate | null; digits: number; tooltip: boolean }
  | { kind: "number"; value: number | null; digits: number }
  | { kind: "cost"; metered: number | null; declared: number | null; note: string | null }
  | { kind: "trend"; svg: string; title?: string }
  | { kind: "text"; text: string };

/** The name cell: the target's link and what a reader must know before trusting its figures. */
export interface TargetCell {
  label: string;
  /** The target's page, from the site root. */
  href: string;
  simulated: boolean;
  /** The latest run's problem in words, and whether it is a partial run (else an invalid or stopped one). */
  problem: { text: string; partial: boolean } | null;
  /** The model line, shown when the row is not under its model's group header; href from the site root. */
  model: { key: string; href: string } | null;
  /** Notes under the name, plain text. */
  notes: string[];
  /** Levels invalid in some runs, with their reasons as a tooltip and a link to why (from the site root). */
  invalid: { text: string; title: string; href: string } | null;
  /** Same model as the reference route? A badge when it differs, a note when no difference was detected. */
  sameModel: SameModelWords | null;
}

/** A column: its header and how its cells sort. */
export interface Column {
  heading: string;
  /** A second, smaller line under the heading. */
  sub?: string;
  /** The header's tooltip. */
  title?: string;
  type: "num" | "text";
  /** The header of the order the rows come in. */
  sorted?: true;
  /** Not sortable (a sparkline). */
  fixed?: true;
  className?: string;
}

export interface RankingRow {
  id: string;
  modelKey: string;
  cells: Cell[];
}

/** Rows of one model that sit together; the header is shown when the model has several routes on the page. */
export interface RankingGroup {
  modelKey: string;
  header: { href: string; note: string } | null;
  rows: RankingRow[];
}

/** One ranking table and the words around it. */
export interface RankingTable {
  axis: LoadAxis;
  /** The table's id (`leaderboard`, `rate-leaderboard`). */
  id: string;
  /** The heading when the table leads the page (h1), and when it is a section below another (h2). */
  heading: string;
  sectionHeading: string;
  /** The section's anchor when it is below another. */
  anchor: string;
  lead: string;
  /** The scroll box's name for a screen reader. */
  label: string;
  /** The caption: the text before a link to how figures are taken over runs (the methodology), and after it. */
  caption: [string, string];
  columns: Column[];
  groups: RankingGroup[];
  /** True when rows are grouped by model (`data-grouped`). */
  grouped: boolean;
  /** Shown when there is no row; `code` in backticks. */
  empty: string;
  /** A note under the table. */
  footnote: string | null;
  /** Links to the ranking at each level of this axis (`N=8` -> `at/8/`), relative to the page. */
  levelLinks: { text: string; href: string }[];
}

/** What a table needs to know of its page. */
export interface RankingContext {
  scenario: string;
  /** True when the site has several scenarios (headings then name this one). */
  named: boolean;
  /** A target's page and a model's page in this scenario, from the site root. */
  targetHref: (id: string) => string;
  modelHref: (modelKey: string) => string;
  /** The standing window's hours and runs. */
  window: { windowHours: number; maxRuns: number };
  /** True when the table is a section below another (its lead is then a plain paragraph). */
  section: boolean;
}

const slo = (views: readonly TargetView[]): Slo => views[0]?.standing.slo ?? DEFAULT_SLO;

/** What a group header says of its routes: all of them, or which stretch of them (another model ranks between). */
export function groupNote(g: RankedGroup<unknown>): string {
  if (g.rows.length === g.modelRoutes) return `${g.modelRoutes} routes, best first`;
  const below = g.modelRoutes - g.routesAbove - g.rows.length;
  const where = g.routesAbove > 0 && below > 0 ? "above and below" : g.routesAbove > 0 ? "above" : "below";
  return `${g.rows.length} of its ${g.modelRoutes} routes; the ${g.modelRoutes - g.rows.length === 1 ? "other ranks" : "others rank"} ${where}, past another model`;
}

/** Each view's same-model verdict in words, by id: looked up once per ranking, not per row. */
const sameModelById = (views: readonly TargetView[]) => new Map(views.map((v) => [v.id, sameModelWords(v.sameModel)]));

const problemOf = (text: string | null) => (text ? { text, partial: text.startsWith("partial") } : null);
const lastRunNote = (errorRate: number, rateLimitRate: number) =>
  errorRate > 0 || rateLimitRate > 0 ? [`last run: errors ${pct(errorRate)}, 429s ${pct(rateLimitRate)}`] : [];

/** Closed loops: ranked by peak aggregate tok/s, with single-stream speed and TTFT beside it. */
function concurrencyRanking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const rows = leaderboardRows([...views]);
  const groups = rankedGroups(rows);
  const sameModel = sameModelById(views);
  const sloText = sloWords(slo(views));
  const { windowHours, maxRuns } = ctx.window;
  const levels = [...new Set(views.flatMap((v) => levelsOfAxis(v, "concurrency")))].sort((a, b) => a - b);
  return {
    axis: "concurrency",
    id: "leaderboard",
    heading: `LLM throughput: one user, and everyone at once${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `One user, and everyone at once${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "throughput",
    lead: "A single request shows what one waiting user gets; under load each stream slows down while the fleet's total rises, until it stops rising at the knee. So every row shows both: single-stream speed and TTFT, and the peak aggregate throughput with what each stream still gets there.",
    label: "Leaderboard, one row per target, in rank order, grouped by model",
    caption: [
      `Each figure is the median over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs; the latest valid run when none is that recent), with the interval that bounds it in brackets below it (`,
      `; the peak's tooltip says how many runs). Ranked by peak aggregate tok/s: targets whose intervals overlap share a rank (=2). Rows run in rank order; a model's routes sit together under their model wherever no other model ranks between them. Clicking a column header sorts all rows and drops the grouping. Capacity: the most users served at ${sloText}. Trend: peak aggregate over the last ${TREND_RUNS} runs. Runs, knee, scaling efficiency, errors and the latest run's levels are on each target's page.`,
    ],
    columns: [
      {
        heading: "rank",
        type: "num",
        title: "1 + targets whose peak aggregate interval lies wholly above; = marks a shared rank",
      },
      { heading: "target", type: "text", className: "text" },
      {
        heading: "single-stream tok/s",
        type: "num",
        title: "output tokens per second of one request alone, p50 at concurrency 1",
      },
      { heading: "TTFT p50 ms", type: "num", title: "time to first token at concurrency 1, p50" },
      {
        heading: "peak aggregate tok/s",
        type: "num",
        sorted: true,
        title: "highest aggregate output tokens per second over the valid levels",
      },
      { heading: "at N", type: "num", title: "the concurrency of the peak" },
      { heading: "per-stream at peak", type: "num", title: "per-stream output tok/s (p50) at the peak" },
      {
        heading: "capacity",
        sub: `serves N users at ${sloText}`,
        type: "num",
        className: "capacity",
        title: "highest level whose medians meet the SLO: per-stream p50 and TTFT p95",
      },
      {
        heading: "$/Mtok at peak",
        type: "num",
        className: "cost",
        title:
          "cost per million output tokens at the peak, metered by the gateway and declared by the operator's pricing (latest run)",
      },
      { heading: "trend", type: "text", className: "text", fixed: true },
    ],
    groups: groups.map((g) => ({
      modelKey: g.modelKey,
      header: g.modelRoutes > 1 ? { href: ctx.modelHref(g.modelKey), note: groupNote(g) } : null,
      rows: g.rows.map((r) => ({
        id: r.id,
        modelKey: r.modelKey,
        cells: [
          { kind: "rank", label: r.rankLabel, value: r.rank },
          {
            kind: "target",
            target: {
              label: r.label,
              href: ctx.targetHref(r.id),
              simulated: r.simulated,
              problem: problemOf(r.problem),
              model: g.modelRoutes === 1 ? { key: r.modelKey, href: ctx.modelHref(r.modelKey) } : null,
              notes: [
                ...(r.beyondWindow
                  ? [`no valid run in the last ${windowHours} hours: the latest valid run stands in`]
                  : []),
                ...lastRunNote(r.errorRate, r.rateLimitRate),
              ],
              invalid:
                r.invalidLevels.length > 0
                  ? {
                      text: `invalid in some runs at ${r.invalidLevels.map((l) => l.at).join(", ")}`,
                      title: r.invalidLevels
                        .map((l) => `${l.at} invalid in ${l.invalidRuns} of ${l.runs} runs: ${l.reasons.join("; ")}`)
                        .join("\n"),
                      href: `${ctx.targetHref(r.id)}#standing-levels`,
                    }
                  : null,
              sameModel: sameModel.get(r.id) ?? null,
            },
          },
          { kind: "estimate", estimate: r.singleStreamTokensPerSecond, digits: 1, tooltip: false },
          { kind: "estimate", estimate: r.singleStreamTtftP50Ms, digits: 0, tooltip: false },
          { kind: "estimate", estimate: r.peakAggregateTokensPerSecond, digits: 0, tooltip: true },
          { kind: "number", value: r.peakConcurrency, digits: 0 },
          { kind: "estimate", estimate: r.perStreamAtPeakTokensPerSecond, digits: 1, tooltip: false },
          { kind: "number", value: r.capacityConcurrency, digits: 0 },
          { kind: "cost", ...r.costAtPeak },
          {
            kind: "trend",
            svg: sparkline(r.trend, { label: `trend of ${r.id}` }),
            title: `last measured ${when(r.measuredAt)}`,
          },
        ],
      })),
    })),
    grouped: true,
    empty: "No runs yet. Run `npm start` or `kneeboard run --config FILE`.",
    footnote: null,
    levelLinks: levels.map((n) => ({ text: `N=${n}`, href: `at/${n}/` })),
  };
}

/** Open loops: ranked by capacity in requests/s at the SLO, with the rate achieved there. */
function rateRanking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const rows = rateRows(views);
  const sameModel = sameModelById(views);
  const sloText = sloWords(slo(views));
  const { windowHours, maxRuns } = ctx.window;
  return {
    axis: "rate",
    id: "rate-leaderboard",
    heading: `LLM serving capacity in requests/s (${ctx.scenario})`,
    sectionHeading: `Serving capacity in requests/s${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "capacity",
    lead: `Requests arrive on their own schedule (Poisson, at set rates), whether or not earlier ones have finished, as users do. Each row shows the highest offered rate at which each user still got ${sloText}: the capacity in requests/s, and the rate the client actually achieved there.`,
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by capacity in requests per second`,
    caption: [
      `Capacity, TTFT, per-stream and aggregate figures are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      `); a run in which no rate met the SLO counts as 0 req/s. Ranked by capacity: targets whose intervals overlap share a rank (=2). Achieved: requests sent per second at the latest run's capacity rate. TTFT p95 and per-stream tok/s are at that rate. Trend: capacity over the last runs.`,
    ],
    columns: [
      {
        heading: "rank",
        type: "num",
        title: "1 + targets whose capacity interval lies wholly above; = marks a shared rank",
      },
      { heading: "target", type: "text", className: "text" },
      {
        heading: "capacity req/s",
        sub: `at ${sloText}`,
        type: "num",
        sorted: true,
        title: `highest offered rate whose level meets the SLO: ${sloText}`,
      },
      { heading: "achieved req/s", type: "num", title: "requests sent per second at the capacity rate, latest run" },
      { heading: "TTFT p95 ms", type: "num", title: "time to first token p95 at the capacity rate" },
      { heading: "per-stream tok/s", type: "num", title: "per-stream output tok/s (p50) at the capacity rate" },
      { heading: "peak aggregate tok/s", type: "num", title: "highest aggregate output tok/s over the valid rates" },
      { heading: "at req/s", type: "num", title: "the offered rate of the peak" },
      { heading: "trend", type: "text", className: "text", fixed: true },
    ],
    // Each route on its own row, with its model named: rates are not grouped by model.
    groups: rows.map((r) => ({
      modelKey: r.modelKey,
      header: null,
      rows: [
        {
          id: r.id,
          modelKey: r.modelKey,
          cells: [
            { kind: "rank", label: r.rankLabel, value: r.rank },
            {
              kind: "target",
              target: {
                label: r.label,
                href: ctx.targetHref(r.id),
                simulated: r.simulated,
                problem: problemOf(r.problem),
                model: { key: r.modelKey, href: ctx.modelHref(r.modelKey) },
                notes: lastRunNote(r.errorRate, r.rateLimitRate),
                invalid: null,
                sameModel: sameModel.get(r.id) ?? null,
              },
            },
            { kind: "estimate", estimate: r.capacity, digits: 2, tooltip: true },
            { kind: "number", value: r.achievedAtCapacity, digits: 2 },
            { kind: "estimate", estimate: r.ttftP95AtCapacity, digits: 0, tooltip: false },
            { kind: "estimate", estimate: r.perStreamAtCapacity, digits: 1, tooltip: false },
            { kind: "estimate", estimate: r.peakAggregate, digits: 0, tooltip: false },
            { kind: "number", value: r.peakRatePerSecond, digits: 2 },
            { kind: "trend", svg: sparkline(r.trend, { label: `capacity trend of ${r.id}` }) },
          ],
        },
      ],
    })),
    grouped: false,
    empty: "No runs yet.",
    footnote: `An open loop has no single-stream figure${ctx.section ? ", so these targets are ranked here and not above" : ""}; each rate's figures, with the rate achieved, requests in flight and how late sends left, are on each target's page.`,
    levelLinks: [],
  };
}

/**
 * Rows ranked lower-first by an estimate (shared ranks where intervals overlap), in rank order, then
 * by the estimate's median, then by id; each row with its rank and its rank's label.
 */
function rankedLowerFirst<R extends { v: TargetView }>(
  rows: R[],
  estimate: (row: R) => Estimate | null,
): (R & { rank: number | null; rankLabel: string })[] {
  const ranks = ranksBy(
    rows.map((r) => ({ id: r.v.id, estimate: estimate(r) })),
    "lower",
  );
  const all = [...ranks.values()];
  const last = Number.POSITIVE_INFINITY;
  return rows
    .map((r) => ({ ...r, rank: ranks.get(r.v.id) ?? null, rankLabel: rankLabel(ranks.get(r.v.id) ?? null, all) }))
    .sort(
      (a, b) =>
        (a.rank ?? last) - (b.rank ?? last) ||
        (estimate(a)?.median ?? last) - (estimate(b)?.median ?? last) ||
        a.v.id.localeCompare(b.v.id),
    );
}

/** A view's own row, one to a group (rankings that do not group routes by model): its rank, its name cell, then `cells`. */
function viewGroup(
  r: { v: TargetView; rank: number | null; rankLabel: string },
  ctx: RankingContext,
  cells: Cell[],
): RankingGroup {
  const { v } = r;
  const modelKey = targetModelKey(v);
  return {
    modelKey,
    header: null,
    rows: [
      {
        id: v.id,
        modelKey,
        cells: [
          { kind: "rank", label: r.rankLabel, value: r.rank },
          {
            kind: "target",
            target: {
              label: v.label,
              href: ctx.targetHref(v.id),
              simulated: v.simulated,
              problem: null,
              model: { key: modelKey, href: ctx.modelHref(modelKey) },
              notes: lastRunNote(v.latest.summary.errorRate, v.latest.summary.rateLimitRate),
              invalid: null,
              sameModel: sameModelWords(v.sameModel),
            },
          },
          ...cells,
        ],
      },
    ],
  };
}

/** Short words for a conversation level's prompt-cache verdict, in a ranking's cell. */
const CACHE_CELL: Record<CacheVerdict, string> = {
  reported: "reported",
  no_cache_seen: "no prompt cache seen",
  not_reported: "cache not reported",
  undetermined: "too little to tell",
};

/**
 * The level a conversation ranking compares routes at: the highest concurrency every route ranks (valid
 * in most runs), so each is judged with as many users in conversation; else each route's own highest.
 */
function conversationLevel(views: readonly TargetView[]): number | null {
  const ranked = views.map(
    (v) =>
      new Set(v.standing.levels.filter((l) => l.ranked && l.laterTurnsTtftP50Ms).map((l) => concurrencyOf(l.load))),
  );
  const common = [...(ranked[0] ?? [])].filter((n): n is number => n !== null && ranked.every((r) => r.has(n)));
  return common.length > 0 ? Math.max(...common) : null;
}

/**
 * Conversations: ranked by the later turns' TTFT p50 (turn 2 on, where a prompt cache tells), lower
 * first, at one level for every route; per-stream tok/s beside it, and what the route's cache did.
 */
function conversationRanking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const common = conversationLevel(views);
  const rows = views.map((v) => {
    const candidates = v.standing.levels.filter((l) => l.ranked && l.laterTurnsTtftP50Ms);
    const level = common === null ? candidates.at(-1) : candidates.find((l) => concurrencyOf(l.load) === common);
    const firstTurn = v.latest.levels
      .find((l) => level && sameLoad(l.load, level.load))
      ?.conversation?.byTurn.find((t) => t.turn === 1);
    return { v, level, firstTurn };
  });
  const sorted = rankedLowerFirst(rows, (r) => r.level?.laterTurnsTtftP50Ms ?? null);
  const { windowHours, maxRuns } = ctx.window;
  return {
    axis: "concurrency",
    id: "conversation-leaderboard",
    heading: `LLM conversations: what a chat's later turns wait${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `Conversations: later turns' TTFT${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "conversations",
    lead: "Users in conversation re-send the whole history every turn. A route's prompt cache decides what a later turn waits for its first token: with a cache the history costs almost nothing to prefill, without one every turn pays for the whole conversation again. Ranked by the later turns' TTFT p50 (turn 2 on), lower first.",
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by the later turns' time to first token`,
    caption: [
      `Later-turn TTFT p50 and per-stream tok/s are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      `), at ${common === null ? "each route's highest level valid in most runs" : `N=${common}, the highest level every route ranks`}. Routes whose intervals overlap share a rank (=2). Turn 1's TTFT is the latest run's. Prompt cache: what the latest runs say of the route's cache (reported cached tokens; or, when none are reported, whether later turns' TTFT grows with the history).`,
    ],
    columns: [
      {
        heading: "rank",
        type: "num",
        title: "1 + targets whose later-turn TTFT interval lies wholly below; = marks a shared rank",
      },
      { heading: "target", type: "text", className: "text" },
      {
        heading: "later turns TTFT p50 ms",
        type: "num",
        sorted: true,
        title: "time to first token p50 of turns 2 and later",
      },
      { heading: "at N", type: "num", title: "the users in conversation at once" },
      { heading: "turn 1 TTFT p50 ms", type: "num", title: "time to first token p50 of the first turn, latest run" },
      { heading: "per-stream tok/s", type: "num", title: "per-stream output tok/s (p50) at that level" },
      { heading: "prompt cache", type: "text", className: "text" },
    ],
    groups: sorted.map((r) =>
      viewGroup(r, ctx, [
        { kind: "estimate", estimate: r.level?.laterTurnsTtftP50Ms ?? null, digits: 0, tooltip: true },
        { kind: "number", value: r.level ? concurrencyOf(r.level.load) : null, digits: 0 },
        { kind: "number", value: r.firstTurn?.ttftP50Ms ?? null, digits: 0 },
        { kind: "estimate", estimate: r.level?.perStreamOutputTokensPerSecondP50 ?? null, digits: 1, tooltip: false },
        { kind: "text", text: r.level?.cacheVerdict ? CACHE_CELL[r.level.cacheVerdict] : "—" },
      ]),
    ),
    grouped: false,
    empty: "No runs yet.",
    footnote: "Each level's TTFT and cached share turn by turn are on each target's page.",
    levelLinks: [],
  };
}

/**
 * Trace replays: the same recorded traffic sent at each speedup. Ranked by TTFT p95 at the lowest
 * speedup (the trace's own pace or nearest it), lower first, over the standing's runs; beside it what
 * the trace allowed from a prompt cache and what the route reported cached, and the fastest speedup
 * still valid.
 */
function speedupRanking(views: readonly TargetView[], ctx: RankingContext): RankingTable {
  const rows = views.map((v) => {
    const ranked = v.standing.levels
      .filter((l) => l.ranked)
      .sort((a, b) => loadPosition(a.load) - loadPosition(b.load));
    const first = ranked[0];
    const latestFirst = first ? v.latest.levels.find((l) => sameLoad(l.load, first.load)) : undefined;
    return { v, first, latestFirst, fastest: ranked.at(-1) };
  });
  const sorted = rankedLowerFirst(rows, (r) => r.first?.ttftP95Ms ?? null);
  const { windowHours, maxRuns } = ctx.window;
  return {
    axis: "speedup",
    id: "trace-leaderboard",
    heading: `LLM routes replaying recorded traffic${ctx.named ? ` (${ctx.scenario})` : ""}`,
    sectionHeading: `Replayed traffic${ctx.named ? ` (${ctx.scenario})` : ""}`,
    anchor: "trace",
    lead: "A recorded trace sent as it was recorded, each request at its own time with its own prompt and answer lengths, then the same traffic faster. Requests that shared a prompt prefix in the trace share it here, so a route's prompt cache sees the reuse the trace recorded. Ranked by TTFT p95 at the trace's own pace, lower first.",
    label: `Leaderboard of scenario ${ctx.scenario}, one row per target, ranked by time to first token p95 of the replayed trace`,
    caption: [
      `TTFT p95 and per-stream tok/s are medians over the target's valid runs of the last ${windowHours} hours (at most ${maxRuns} runs), the interval bounding each in brackets (`,
      "), at the lowest speedup valid in most runs. Routes whose intervals overlap share a rank (=2). Reusable: the share of prompt tokens a perfect prefix cache could serve, from the trace's hash_ids; cached: the share the route reported cached (latest run). Fastest: the highest speedup valid in most runs.",
    ],
    columns: [
      {
        heading: "rank",
        type: "num",
        title: "1 + targets whose TTFT p95 interval lies wholly below; = marks a shared rank",
      },
      { heading: "target", type: "text", className: "text" },
      { heading: "TTFT p95 ms", type: "num", sorted: true, title: "time to first token p95 at the lowest speedup" },
      { heading: "at speedup", type: "num", title: "the speedup of those figures (1: as recorded)" },
      { heading: "per-stream tok/s", type: "num", title: "per-stream output tok/s (p50) there" },
      { heading: "reusable %", type: "num", title: "prompt tokens the trace allows from a cache, latest run" },
      { heading: "cached %", type: "num", title: "prompt tokens the route reported cached, latest run" },
      { heading: "fastest valid", type: "num", title: "the highest speedup valid in most runs" },
    ],
    groups: sorted.map((r) =>
      viewGroup(r, ctx, [
        { kind: "estimate", estimate: r.first?.ttftP95Ms ?? null, digits: 0, tooltip: true },
        { kind: "number", value: r.first ? loadPosition(r.first.load) : null, digits: 2 },
        { kind: "estimate", estimate: r.first?.perStreamOutputTokensPerSecondP50 ?? null, digits: 1, tooltip: false },
        { kind: "number", value: percent(r.latestFirst?.reusablePromptTokenShare), digits: 0 },
        { kind: "number", value: percent(r.latestFirst?.cachedPromptTokenShare), digits: 0 },
        { kind: "number", value: r.fastest ? loadPosition(r.fastest.load) : null, digits: 2 },
      ]),
    ),
    grouped: false,
    empty: "No runs yet.",
    footnote: "Each speedup's TTFT and end-to-end percentiles, with both shares, are on each target's page.",
    levelLinks: [],
  };
}

const percent = (share: number | null | undefined) => (share === null || share === undefined ? null : share * 100);

/** The levels of a view's runs on an axis (the latest run's and the standing's): what at-level pages exist for. */
function levelsOfAxis(view: TargetView, axis: LoadAxis): number[] {
  if (viewAxis(view) !== axis || axis !== "concurrency") return [];
  return [...view.latest.levels, ...view.standing.levels].flatMap((l) =>
    l.load.kind === "closed" ? [l.load.concurrency] : [],
  );
}

/**
 * What a view is ranked as: by its load axis, except conversations (closed loops whose levels carry
 * figures by turn), which rank by what their later turns wait.
 */
export type RankingKind = LoadAxis | "conversation";

export function rankingKindOf(view: TargetView): RankingKind {
  return view.latest.levels.some((l) => l.conversation !== null) ? "conversation" : viewAxis(view);
}

/** The ranking of each kind, in the order they stand on a page: closed loops first. */
export const RANKINGS: Record<RankingKind, (views: readonly TargetView[], ctx: RankingContext) => RankingTable> = {
  concurrency: concurrencyRanking,
  conversation: conversationRanking,
  rate: rateRanking,
  speedup: speedupRanking,
};

/**
 * A scenario's rankings: one per axis its targets run on, closed loops first; a scenario with no
 * target yet still shows the (empty) closed-loop table, which says how to make a run.
 */
export function scenarioRankings(views: readonly TargetView[], ctx: Omit<RankingContext, "section">): RankingTable[] {
  const kinds = (Object.keys(RANKINGS) as RankingKind[]).filter((kind) => views.some((v) => rankingKindOf(v) === kind));
  const present = kinds.length > 0 ? kinds : (["concurrency"] as RankingKind[]);
  return present.map((kind, i) =>
    RANKINGS[kind](
      views.filter((v) => rankingKindOf(v) === kind),
      { ...ctx, section: i > 0 },
    ),
  );
}
