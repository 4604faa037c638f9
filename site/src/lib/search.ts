/**
 * @module A searched sweep as the site says it (docs/methodology.md): the answer a search found, the
 * bracket it lies in, how sure and how fine, why the search stopped and what it spent against the
 * ladder it replaced, and its probed levels in the order they ran. A search is a sequence of levels of
 * one kind, so nothing here asks a kind: its axis (`concurrency` or `rate`) names its unit.
 */
import { type Bracket, type Load, loadPosition, type SearchRecord } from "@kneeboard/core/run";
import type { Estimate, SearchedEstimate } from "@kneeboard/core/standing";
import { AXES } from "./charts/axis.ts";
import { estimateTitle, fmt, pct } from "./format.ts";
import type { HistoryPoint, TargetView } from "./site-index.ts";
import { num, type PageSection, type Table, text } from "./table.ts";

export type { Bracket, SearchRecord };

/** Why a search stopped, in words a reader of the page follows. */
const STOP_WORDS: Record<SearchRecord["stop"]["reason"], string> = {
  resolved: "the bracket narrowed to the resolution",
  reached_to: "every load up to the search's top (`to`) met the SLO",
  over_saturation: "over-saturation: TTFT kept rising while aggregate throughput did not",
  below_from: "even the lowest load (`from`) missed the SLO",
  undecided: "a level stayed undecided at its request cap",
  failures: "a level's requests failed",
  rate_limited: "the route rate-limited a level",
  unreachable: "the route stopped answering",
  stopped: "the run was stopped before the search resolved",
  budget: "it reached its request budget (by default what the doubling ladder over the same range sends)",
  client_limited: "the client could not keep up with a level: its answer is the client's limit, not the route's",
};

/** What a bracket's status says of its value. */
const STATUS_WORDS: Record<Bracket["status"], string> = {
  found: "found",
  below_from: "below the search's lowest load",
  at_to: "at least the search's top load",
  undecided: "undecided: a level near it could not be told apart from the SLO",
  not_reached: "not reached",
};

/** A searched load in its axis's unit: users at once, or requests/s. */
const LOAD_WORDS: Record<SearchRecord["axis"], (value: number) => string> = {
  concurrency: (n) => `${fmt(n, Number.isInteger(n) ? 0 : 1)} user${n === 1 ? "" : "s"}`,
  rate: (r) => `${fmt(r, r % 1 === 0 ? 0 : 2)} req/s`,
};

/** A load on the search's axis in words: `10 users`, `3.5 req/s`. */
export function searchedLoad(axis: SearchRecord["axis"], value: number | null): string {
  return value === null ? "—" : LOAD_WORDS[axis](value);
}

/** A bracket as `[10, 11]` in the axis's numbers, `—` where an end is unknown. */
export function bracketText(b: Bracket): string {
  const end = (x: number | null) => (x === null ? "—" : String(Number(x.toFixed(3))));
  return `[${end(b.lo)}, ${end(b.hi)}]`;
}

/** A searched figure in one line: `10 users, in [10, 11] (found)`. */
export function bracketWords(axis: SearchRecord["axis"], b: Bracket): string {
  return `${searchedLoad(axis, b.value)}, in ${bracketText(b)} (${STATUS_WORDS[b.status]})`;
}

/** The search's confidence and resolution: `95 % confidence, 10 % resolution`. */
export const precisionWords = (s: SearchRecord) =>
  `${pct(s.confidence, 0)} confidence, ${pct(s.resolution, 0)} resolution`;

/** What the search spent against the ladder it replaced: `152 requests, where the ladder would have sent 256 (59 %)`. */
export function costWords(s: SearchRecord): string {
  const share = s.ladderRequests > 0 ? ` (${pct(s.requests / s.ladderRequests, 0)})` : "";
  return `${fmt(s.requests)} requests, where the ladder from ${fmt(s.from, 2).replace(/\.00$/, "")} to ${fmt(s.to, 2).replace(/\.00$/, "")} would have sent ${fmt(s.ladderRequests)}${share}`;
}

/** Why the search stopped, its reason in words and the search's own detail. */
export const stopWords = (s: SearchRecord) =>
  `${STOP_WORDS[s.stop.reason]}${s.stop.detail ? `: ${s.stop.detail}` : ""}`;

/** The searched runs of a view's standing, newest first: each run's search. */
export function standingSearches(view: Pick<TargetView, "history" | "standing">): HistoryPoint[] {
  const inStanding = new Set(view.standing.runIds);
  return view.history.filter((h) => inStanding.has(h.runId) && h.search !== null).reverse();
}

/** How a searched figure over runs was found: `3 runs: 2 found, 1 undecided`. */
function runsWords(f: SearchedEstimate): string {
  const others = f.runs - f.found - f.undecided;
  return `${f.runs} searched run${f.runs === 1 ? "" : "s"}: ${f.found} found, ${f.undecided} undecided${others > 0 ? `, ${others} stopped short of the resolution` : ""}`;
}

/** A searched figure over runs in words: `11 users (10 to 12: median of 3 runs; interval: their range)`. */
export function searchedEstimateWords(axis: SearchRecord["axis"], e: Estimate | null): string {
  if (e === null) return "—";
  const end = (x: number) => String(Number(x.toFixed(3)));
  const interval = e.low === e.high ? "" : `${end(e.low)} to ${end(e.high)}: `;
  return `${searchedLoad(axis, e.median)} (${interval}${estimateTitle(e)})`;
}

/**
 * The capacity a ranking shows of a searched target: the standing's searched capacity, the median of
 * its runs' searched capacities with its interval, and a tooltip giving how the runs found it and the
 * newest run's bracket, confidence and cost; null when no run of the standing searched (a ladder's
 * capacity is the standing's, read off the median curve).
 */
export function searchedCapacity(
  view: Pick<TargetView, "history" | "standing">,
): { estimate: Estimate | null; title: string } | null {
  const over = view.standing.search;
  const [newest, ...older] = standingSearches(view);
  const s = newest?.search;
  if (!over || !s) return null;
  const others = older.map((h) => searchedLoad(s.axis, h.search?.capacity.value ?? null));
  return {
    estimate: over.capacity.estimate,
    title: `searched: ${searchedEstimateWords(over.axis, over.capacity.estimate)} over ${runsWords(over.capacity)}. Newest run of the standing: ${bracketWords(s.axis, s.capacity)}; ${precisionWords(s)}; ${costWords(s)}${
      others.length > 0 ? `. Earlier runs found ${others.join(", ")}` : ""
    }`,
  };
}

/** The standing's searched knee over runs (null when no run of the standing searched), in words with how the runs found it. */
export function searchedKnee(view: Pick<TargetView, "standing">): { estimate: Estimate | null; title: string } | null {
  const over = view.standing.search;
  if (!over) return null;
  return {
    estimate: over.knee.estimate,
    title: `searched: ${searchedEstimateWords(over.axis, over.knee.estimate)} over ${runsWords(over.knee)}`,
  };
}

/** A probed level: its load, order and decision, and the decision's bounds where the run document gives them. */
interface ProbedLevel {
  load: Load;
  probe?: {
    order: number;
    decision: "meets" | "misses" | "undecided" | "not_judged";
    ttftP95UpperMs?: number | null;
    perStreamP50LowerTokensPerSecond?: number | null;
    requests?: number;
  } | null;
}

/** The latest run's search and its probed levels: its run document's where readable (bounds included), else its index entry's. */
function latestSearch(view: Pick<TargetView, "latest" | "details">): {
  search: SearchRecord;
  levels: readonly ProbedLevel[];
} | null {
  const { latest, details } = view;
  const fromDocument = details !== null && details.key === latest.key;
  const search = (fromDocument ? details.summary.search : latest.summary.search) ?? null;
  if (search === null) return null;
  return { search, levels: fromDocument ? details.levels : latest.levels };
}

/**
 * The target page's account of a searched latest run: the capacity and knee with their brackets, the
 * confidence and resolution, why it stopped, the requests and tokens it spent against the ladder, and
 * each probed level in the order it ran; null when the latest run walked a ladder.
 */
export function searchSection(view: Pick<TargetView, "latest" | "details">): PageSection | null {
  const found = latestSearch(view);
  if (found === null) return null;
  const { search: s, levels } = found;
  const axis = AXES[s.axis];
  const probed = levels
    .filter((l): l is ProbedLevel & { probe: NonNullable<ProbedLevel["probe"]> } => Boolean(l.probe))
    .sort((a, b) => a.probe.order - b.probe.order);
  const summary: Table = {
    id: "search",
    label: "What the search found and spent, latest run",
    caption: `Latest run: the levels were searched, not walked as a ladder, from ${axis.label(s.from)} to ${axis.label(s.to)}`,
    columns: [],
    rows: [
      ["capacity at the SLO", bracketWords(s.axis, s.capacity), "search-capacity"],
      ["knee", bracketWords(s.axis, s.knee), "search-knee"],
      ["decided at", precisionWords(s), "search-precision"],
      ["stopped because", stopWords(s), "search-stop"],
      ["spent", costWords(s), "search-cost"],
      ["tokens", `${fmt(s.promptTokens)} prompt, ${fmt(s.outputTokens)} output`, "search-tokens"],
    ].map(([k, v, id]) => ({
      data: { "data-row": id as string },
      cells: [text(k as string, { header: true }), text(v as string)],
    })),
  };
  const order: Table = {
    id: "search-probes",
    label: "The probed levels in the order the search ran them, latest run",
    caption:
      "Each probed level in the order it ran, with its SLO decision and the confidence bounds it was drawn from; the numbers by the points of the throughput curves are these orders",
    columns: [
      { head: "order" },
      { head: axis.name },
      { head: "decision", class: "text" },
      { head: "TTFT p95 upper bound ms" },
      { head: "per-stream p50 lower bound tok/s" },
      { head: "requests" },
    ],
    rows: probed.map((l) => ({
      data: { "data-order": String(l.probe.order) },
      cells: [
        num(String(l.probe.order)),
        num(axis.label(loadPosition(l.load))),
        text(l.probe.decision.replace("_", " ")),
        num(fmt(l.probe.ttftP95UpperMs)),
        num(fmt(l.probe.perStreamP50LowerTokensPerSecond, 1)),
        num(fmt(l.probe.requests)),
      ],
    })),
  };
  return { id: "search-section", heading: "How the search found its levels", figures: [], tables: [summary, order] };
}
