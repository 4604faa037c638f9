/**
 * @module The load kinds (docs/architecture.md#load-kinds), one module each under kinds/<kind>/, listed
 * once here: the one place that says which kind a workload or a load is. Everything outside asks this
 * registry (a load's words, axis and place, a workload's levels, a level's driver); nothing else
 * branches on a kind. A new kind is a folder beside these, its line in `KINDS` and `KIND_FIGURES`
 * and its members of the `Load` and `LevelLoad` unions (and of `Arrival`, with its `MODE_KIND`, when
 * an `arrival.mode` selects it; of `FigureParts` when its level figures are made of something new).
 */
import { z } from "zod";
import type { DriveSpec, LevelDriver } from "../drive/driver.ts";
import type {
  ExpandContext,
  HeadlineParts,
  LayerProblem,
  LoadAxis,
  LoadKind,
  PlanWords,
  SummaryUnits,
  SweepLayers,
} from "../drive/kind.ts";
import type { LevelBudget, LevelPlanOf } from "../drive/plan.ts";
import type { ScheduleFigures } from "../drive/schedule.ts";
import { isLevelSearch, type LevelSearch, type LevelSearchSettings } from "../drive/search.ts";
import type { WorkersFigures } from "../drive/workers.ts";
import { ClosedArrival, ClosedLoad, closed } from "./closed/index.ts";
import {
  type Conversation,
  type ConversationLevelLoad,
  ConversationLoad,
  type ConversationTurns,
  conversation,
} from "./conversation/index.ts";
import { GammaArrival, type OpenLevelLoad, OpenLoad, open, PoissonArrival } from "./open/index.ts";
import { TraceArrival, type TraceLevelLoad, TraceLoad, type TraceWindow, trace } from "./trace/index.ts";

export { ScheduleFigures } from "../drive/schedule.ts";
export { WorkersFigures } from "../drive/workers.ts";
export { ClosedFigures } from "./closed/index.ts";
export {
  CacheVerdict,
  Conversation,
  ConversationFigures,
  ConversationTurns,
  conversationLoadOfV2,
  TurnFigures,
} from "./conversation/index.ts";
export { OpenFigures } from "./open/index.ts";
export { TraceFigures, TraceFormat } from "./trace/index.ts";
export type { ExpandContext, HeadlineParts, LoadAxis, PlanWords, SummaryUnits };

/**
 * What a level's summary measured that the kinds' own level figures are made of (`KindFigures.of`):
 * each kind reads its part, and `tsc` checks every kind's part is here.
 */
export interface FigureParts extends WorkersFigures {
  /** What a schedule sent (nulls for a level sent on none). */
  schedule: ScheduleFigures;
  /** A trace replay's reusable prompt tokens over prompt tokens of the ok samples; null when none recorded them. */
  reusablePromptTokenShare: number | null;
  /** A conversation level's figures by turn; null when its turns were not measured. */
  conversation: ConversationTurns | null;
}

/**
 * Every load kind by its name. Each run-document load (`Load`) and sweep load (`LevelLoad`) member
 * has its entry and each entry its members: `tsc` names a missing one.
 */
export const KINDS = { closed, open, trace, conversation } as const satisfies {
  [K in Load["kind"]]: LoadKind<
    never,
    Extract<LevelLoad, { kind: K }>,
    Extract<Load, { kind: K }>,
    DriveSpec,
    unknown,
    FigureParts,
    z.ZodRawShape,
    z.ZodRawShape
  >;
};
/** A kind's name: a run document load's `kind`. Each registry below is keyed by it, so `tsc` names every one a new kind is missing from. */
export type Kind = Load["kind"];

/**
 * How requests arrive (the config's `workload.arrival`, docs/config.md#arrivals): each member is its
 * kind's (`closed`; `poisson` and `gamma`, the open loop's; `trace`).
 */
export const Arrival = z.discriminatedUnion("mode", [ClosedArrival, PoissonArrival, GammaArrival, TraceArrival], {
  error:
    'must be { "mode": "closed" }, { "mode": "poisson" | "gamma", "ratesPerSecond": [...] } or { "mode": "trace", "file": ..., "format": "mooncake" | "burstgpt" }',
});
export type Arrival = z.infer<typeof Arrival>;

/** The arrival a workload has when no layer sets one: a closed loop's. */
export const DEFAULT_ARRIVAL = { mode: "closed" } as const satisfies Arrival;

/** The kind of each `arrival.mode`. */
const MODE_KIND = { closed: "closed", poisson: "open", gamma: "open", trace: "trace" } as const satisfies Record<
  Arrival["mode"],
  Kind
>;

/**
 * What a level offers the endpoint, one member per kind (docs/run-document.md#load): `closed`, N
 * requests kept in flight; `open`, requests sent on a schedule of arrivals at `ratePerSecond`;
 * `trace`, a recorded trace's requests at their timestamps divided by `speedup`; `conversation`, N
 * users each holding conversations of `turns` turns.
 */
export const Load = z.discriminatedUnion("kind", [ClosedLoad, OpenLoad, TraceLoad, ConversationLoad]);
export type Load = z.infer<typeof Load>;

/** A level's load as the sweep drives it (with the driver's own settings: seed, maxInFlight, the window). */
export type LevelLoad = ClosedLoad | OpenLevelLoad | TraceLevelLoad | ConversationLevelLoad;

/** One level as the sweep will run it. */
export type LevelPlan = LevelPlanOf<LevelLoad>;

/** The workload fields the kinds read (config's `Workload` has them all). */
export interface KindWorkload extends LevelBudget {
  concurrency: number[] | LevelSearch;
  arrival: Arrival;
  conversation?: Conversation;
}

/** A kind's own level figures on a level: null on levels of other kinds (and in documents stored before they were recorded). */
const nested = <T extends z.ZodType>(schema: T) => schema.nullable().default(null);

/**
 * The level figures each kind alone has, each under its kind's name: `level.closed`, `level.open`,
 * `level.trace`, `level.conversation` (docs/run-document.md#a-levels-kind-and-its-figures); the run
 * document's `Level` composes them, and `tsc` names a kind missing here.
 */
export const KIND_FIGURES = {
  closed: nested(closed.figures.schema),
  open: nested(open.figures.schema),
  trace: nested(trace.figures.schema),
  conversation: nested(conversation.figures.schema),
} as const satisfies Record<Kind, z.ZodType>;

/** A level's kinds' own figures: its kind's set, the others null. */
export type KindLevelFigures = { [K in Kind]: z.infer<(typeof KIND_FIGURES)[K]> };

/** The members of a union as one intersection: every kind's fields in one object. */
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void ? M : never;
type IndexOf<K extends Kind> = (typeof KINDS)[K]["index"];

/**
 * The kinds' field shapes as one, in `KINDS` order. Two kinds that declare one field would share one
 * column of the index, each level's value read as the other kind's: refused when the registry loads.
 */
export function disjointFields(what: string, shapes: Readonly<Record<string, z.ZodRawShape>>): z.ZodRawShape {
  const owner = new Map<string, string>();
  for (const [kind, shape] of Object.entries(shapes))
    for (const field of Object.keys(shape)) {
      const other = owner.get(field);
      if (other) throw new Error(`kinds ${other} and ${kind} both declare the ${what} field ${field}`);
      owner.set(field, kind);
    }
  return Object.assign({}, ...Object.values(shapes));
}

const kindShapes = (pick: (k: AnyKind) => z.ZodRawShape) =>
  Object.fromEntries((Object.keys(KINDS) as Kind[]).map((name) => [name, pick(entry(name))]));

/**
 * The fields every kind adds to a run index level (`KindIndexFigures.entry`), in `KINDS` order: the
 * index's `LevelFigures` composes them; each null on other kinds' levels.
 */
export const INDEX_FIELDS = disjointFields(
  "run index",
  kindShapes((k) => k.index.entry),
) as Merged<IndexOf<Kind>["entry"]>;

/** The fields every kind adds to a standing's level (`KindIndexFigures.standing`), in `KINDS` order: `StandingLevel` composes them. */
export const STANDING_FIELDS = disjointFields(
  "standing",
  kindShapes((k) => k.index.standing),
) as Merged<IndexOf<Kind>["standing"]>;

type IndexFields = z.output<z.ZodObject<typeof INDEX_FIELDS>>;
type StandingFields = z.output<z.ZodObject<typeof STANDING_FIELDS>>;

/** Every field of a shape, null. */
function nulls<T>(shape: z.ZodRawShape): T {
  return Object.fromEntries(Object.keys(shape).map((k) => [k, null])) as T;
}

/** A level's kind's fields of the run index, from its own figures; every other kind's null (and its own, where it recorded no figures). */
export function indexFields(level: { load: Load } & Partial<KindLevelFigures>): IndexFields {
  const own = level[level.load.kind];
  return { ...nulls<IndexFields>(INDEX_FIELDS), ...(own ? entry(level.load.kind).index.entryOf(own) : {}) };
}

/** A standing level's kind's fields over its valid runs' index levels (newest first); every other kind's null. */
export function standingFields(load: Load, valid: readonly IndexFields[]): StandingFields {
  return { ...nulls<StandingFields>(STANDING_FIELDS), ...entry(load.kind).index.standingOf(valid) };
}

type AnyKind = LoadKind<unknown, LevelLoad, Load, DriveSpec, unknown, FigureParts, z.ZodRawShape, z.ZodRawShape>;

/** The registry entry of a kind, with its types erased: callers pass a load of that kind. */
function entry(kind: Kind): AnyKind {
  return KINDS[kind] as unknown as AnyKind;
}

/** The kind of a workload: a conversation when it holds one, else its arrival's. */
function kindOfWorkload(workload: Pick<KindWorkload, "arrival" | "conversation">): Kind {
  return workload.conversation ? "conversation" : MODE_KIND[workload.arrival.mode];
}

/**
 * The levels a workload sweeps, low to high, each with its load, its name and its time at
 * `context.requestSeconds` a request: the one place a workload's levels are expanded (the sweep runs
 * these, `kneeboard plan` reports them). A trace replay's window comes from `context.traces`.
 */
export function planLevels(workload: KindWorkload, context: ExpandContext): LevelPlan[] {
  return entry(kindOfWorkload(workload)).levels(workload, context);
}

/**
 * The search a workload asks for in place of a ladder, its axis (users or requests/s) and whether its
 * loads are whole numbers (users); null for a ladder, or a kind that cannot search (a replay's speedups).
 */
export function levelSearch(
  workload: KindWorkload,
): { axis: "concurrency" | "rate"; whole: boolean; settings: LevelSearchSettings } | null {
  const kind = entry(kindOfWorkload(workload));
  const settings = kind.search(workload);
  if (!settings || kind.axis === "speedup") return null;
  return { axis: kind.axis, whole: kind.axis === "concurrency", settings };
}

/**
 * The level at `position` on a searched workload's axis (N, requests/s), numbered `level`: expanded
 * as its kind expands a ladder of that one level, so a searched level is run and recorded as any other.
 */
export function levelAt(workload: KindWorkload, position: number, level: number, context: ExpandContext): LevelPlan {
  const kind = entry(kindOfWorkload(workload));
  const [plan] = kind.levels({ ...workload, ...kind.pinned(workload, position) }, context);
  if (!plan) throw new Error(`no level at ${position}`);
  return { ...plan, level };
}

/** How the run document names what a level sent: its load, without the driver's own settings. */
export function documentLoad(load: LevelLoad): Load {
  return entry(load.kind).record(load);
}

/** The axis of a load's kind. */
export function loadAxis(load: Load): LoadAxis {
  return entry(load.kind).axis;
}

/** A load's place on its axis (`loadAxis`): N, requests/s, a replay's speedup; what ranks and charts read. */
export function loadPosition(load: Load): number {
  return entry(load.kind).position(load);
}

/** A load in words, the same in tables, pages and the CLI: `N=8`, `4 req/s`, `trace x2`, `N=8, 4-turn conversations`. */
export function loadWords(load: Load): string {
  return entry(load.kind).words(load);
}

/** The users a level holds at once (a closed loop's or a conversation's N); null for kinds without one. */
export function concurrencyOf(load: Load): number | null {
  return entry(load.kind).users(load);
}

/** True when any of a run's levels reads its knee in offered rate (its kind's `summary`, an open loop's), not in users: its levels' numbers are no users. */
export function kneeInRate(levels: readonly { load: Load }[]): boolean {
  return levels.some((l) => entry(l.load.kind).summary.knee === "kneeRequestsPerSecond");
}

/** True when two loads are the same: the same kind at the same place on its axis, the same traffic. */
export function sameLoad(a: Load, b: Load): boolean {
  return a.kind === b.kind && loadPosition(a) === loadPosition(b) && entry(a.kind).same(a, b);
}

/** Stream chunks per second a level's load asks of the client at the assumed per-stream rate. */
export function loadChunksPerSecond(
  load: LevelLoad,
  outputTokensPerSecondPerStream: number,
  maxTokens: number,
  chunksPerToken = 1,
): number {
  return entry(load.kind).chunksPerSecond(load, outputTokensPerSecondPerStream, maxTokens, chunksPerToken);
}

/** The most threads a level's load can use (a trace replay: one; an open loop: no bound; else N). */
export function loadThreadBound(load: LevelLoad): number {
  return entry(load.kind).threadBound(load);
}

/** The trace window a level replays (its requests sent one for one, and the run document's `trace` record); null for the other kinds. */
export function replayedWindow(load: LevelLoad): TraceWindow | null {
  return load.kind === "trace" ? load.trace : null;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * What the workload layers (global, target, scenario, each at its path) of one swept (target,
 * scenario) set, with the arrival mode the layer that set it last gave (`set`), or that the last
 * layer with an `arrival` gave, else the default (`last`); and where a duration was set last, unless
 * a count was set after it.
 */
function sweepLayers(
  layers: readonly (readonly [PropertyKey[], unknown])[],
  modeFrom: "set" | "last",
): { facts: SweepLayers; kinds: Kind[]; duration: PropertyKey[] | null } {
  const facts: SweepLayers = {
    arrivalKind: null,
    mode: DEFAULT_ARRIVAL.mode,
    conversation: null,
    concurrency: null,
    rates: null,
  };
  let duration: PropertyKey[] | null = null;
  for (const [path, layer] of layers) {
    if (!isObject(layer)) continue;
    if (layer.conversation !== undefined) facts.conversation = [...path, "conversation"];
    if (layer.concurrency !== undefined)
      facts.concurrency = { at: [...path, "concurrency"], search: isLevelSearch(layer.concurrency) };
    if (isObject(layer.arrival)) {
      if (modeFrom === "last") facts.mode = layer.arrival.mode ?? DEFAULT_ARRIVAL.mode;
      else if (layer.arrival.mode !== undefined) facts.mode = layer.arrival.mode;
      facts.rates = { at: [...path, "arrival", "ratesPerSecond"], search: isLevelSearch(layer.arrival.ratesPerSecond) };
    }
    if (layer.levelDurationSeconds !== undefined) duration = [...path, "levelDurationSeconds"];
    if (layer.requestsPerLevel !== undefined) duration = null;
  }
  const mode = facts.mode;
  const arrivalKind: Kind | null =
    typeof mode === "string" && mode in MODE_KIND ? MODE_KIND[mode as Arrival["mode"]] : null;
  facts.arrivalKind = arrivalKind;
  // The kinds asked: the workload's (a conversation's, when it sets one) and its arrival's.
  const kinds = [
    ...new Set<Kind>([
      ...(facts.conversation ? (["conversation"] as const) : []),
      ...(arrivalKind ? [arrivalKind] : []),
    ]),
  ];
  return { facts, kinds, duration };
}

/**
 * The problems of one swept (target, scenario) in its workload layers (global, target, scenario, each
 * at its path), beyond each field's own schema: of its arrivals (`LoadKind.arrivalProblems`, of its
 * workload's kind and its arrival's), and of what it searches (`searchProblems`, and a searched
 * sweep, by its arrival's kind's `searchedIn`, that runs for a duration: a search draws counted
 * requests, docs/config.md#searched-levels).
 */
export function layerProblems(layers: readonly (readonly [PropertyKey[], unknown])[]): {
  arrival: LayerProblem[];
  search: LayerProblem[];
} {
  const sent = sweepLayers(layers, "set");
  const arrival = sent.kinds.flatMap((kind) => entry(kind).arrivalProblems(sent.facts));
  const { facts, kinds, duration } = sweepLayers(layers, "last");
  const search = kinds.flatMap((kind) => entry(kind).searchProblems(facts));
  const arrivalKind = facts.arrivalKind as Kind | null;
  const searched = arrivalKind ? entry(arrivalKind).searchedIn(facts) : facts.rates?.search === true;
  if (searched && duration)
    search.push({
      at: duration,
      message:
        "a searched sweep draws counted requests (more near the SLO's boundary): set requestsPerLevel, not levelDurationSeconds",
    });
  return { arrival, search };
}

/**
 * The conversations a workload's users hold (what its requests' turns are made of); null for a
 * workload of another kind. A workload that sets one is a conversation's, whatever its arrival (`kindOfWorkload`).
 */
export function heldConversation(workload: Pick<KindWorkload, "conversation">): Conversation | null {
  return workload.conversation ?? null;
}

/** A workload's arrival when it replays a trace (the trace file to read); null for the other kinds. */
export function replayedArrival(arrival: Arrival): TraceArrival | null {
  return arrival.mode === "trace" ? arrival : null;
}

/** The N of each level of a workload whose levels hold N users (a closed loop, conversations); null for the others. */
export function userLevels(workload: KindWorkload): number[] | null {
  return entry(kindOfWorkload(workload)).userLevels(workload);
}

/** What `kneeboard plan` says of a workload's kind: its table column, level labels, loop, arrival and notes. */
export function planWords(workload: KindWorkload): PlanWords<KindWorkload, LevelLoad> {
  return entry(kindOfWorkload(workload)).plan as PlanWords<KindWorkload, LevelLoad>;
}

/** Where a load's kind puts its knee and capacity in a run's summary. */
export function summaryUnits(load: Load): SummaryUnits {
  return entry(load.kind).summary;
}

/** True when a load's prompts share prefixes on purpose (a replay, a conversation): a cache serving them is no flaw. */
export function expectsCache(load: Load): boolean {
  return entry(load.kind).expectsCache;
}

/** The rate a load offers, requests/s, where it names one (an open loop's); null for the other kinds. */
export function offeredRate(load: Load): number | null {
  return entry(load.kind).offeredRate(load);
}

/** A run's headline in its load's kind's words. */
export function headlineWords(load: Load, parts: HeadlineParts): string {
  return entry(load.kind).headline(parts);
}

/** The lines `kneeboard run`'s report prints for a level after the headline, by its kind from its own figures (none where it recorded none). */
export function reportLines(level: { load: Load } & Partial<KindLevelFigures>): string[] {
  const own = level[level.load.kind];
  return own ? entry(level.load.kind).reportLines(own, loadWords(level.load)) : [];
}

/** A level's own figures under its load's kind (from what its summary measured), and null under every other kind. */
export function kindFigures(load: Load, parts: FigureParts): KindLevelFigures {
  const none = Object.fromEntries(Object.keys(KINDS).map((k) => [k, null])) as KindLevelFigures;
  return { ...none, [load.kind]: entry(load.kind).figures.of(parts) };
}

/** What a level's schedule sent (`level.open`, `level.trace`); null for a level sent on none, or that recorded none. */
export function levelSchedule(level: { load: Load } & Partial<KindLevelFigures>): ScheduleFigures | null {
  const figures = level[level.load.kind];
  const schedule = entry(level.load.kind).figures.schedule;
  return figures && schedule ? schedule(figures) : null;
}

/** The names of a kind's own figures. */
function figureNames(kind: Kind): string[] {
  const schema = entry(kind).figures.schema;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The figures version 3 held flat on every level, each null where the level's kind had none. */
const FLAT_V3 = [
  "startSpreadMs",
  "achievedRatePerSecond",
  "inFlightMean",
  "inFlightMax",
  "scheduleLagMs",
  "reusablePromptTokenShare",
];

/**
 * A version 3 run document's level with its kind's figures nested under the kind's name, as version
 * 4 has them (docs/run-document.md#version-3): the figures that sat flat on the level (`FLAT_V3`)
 * move under its load's kind, beside what it held there already (a conversation's figures by turn;
 * a figure it lacked is null); the other kinds' flat figures, null, are dropped, and their names left
 * to be null. A level already nested, or of no kind known here, is returned as it is.
 */
export function nestLevelFiguresV3(level: unknown): unknown {
  if (typeof level !== "object" || level === null || Array.isArray(level)) return level;
  const flat = level as Record<string, unknown>;
  const kind = (flat.load as { kind?: unknown } | undefined)?.kind;
  if (typeof kind !== "string" || !(kind in KINDS)) return level;
  const names = figureNames(kind as Kind);
  const held = flat[kind];
  // Figures already nested there: a version 4 level.
  if (typeof held === "object" && held !== null && names.every((n) => n in held)) return level;
  const rest = Object.fromEntries(Object.entries(flat).filter(([k]) => !FLAT_V3.includes(k)));
  // A conversation level without its figures by turn had none to nest.
  if (held === null) return { ...rest, [kind]: null };
  const own = Object.fromEntries(names.filter((n) => FLAT_V3.includes(n)).map((n) => [n, flat[n] ?? null]));
  return { ...rest, [kind]: { ...own, ...(typeof held === "object" ? held : {}) } };
}

/** The driver of a load kind, on the main thread and in worker threads alike. */
export function driverOf(kind: Kind): LevelDriver<LevelLoad, DriveSpec> {
  return entry(kind).driver;
}
