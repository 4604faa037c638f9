/**
 * @module What a load kind is (docs/architecture.md#load-kinds): one module under kinds/<kind>/ that
 * owns everything about its traffic, and one entry in the registry (kinds/index.ts). Code outside
 * asks the registry; it never branches on a kind.
 */
import type { z } from "zod";
import type { DriveSpec, LevelDriver } from "./driver.ts";
import type { LevelBudget, LevelPlanOf } from "./plan.ts";
import type { ScheduleFigures } from "./schedule.ts";
import type { LevelSearchSettings } from "./search.ts";

/** The axis a load is placed on: a closed loop's concurrency, an open loop's offered rate, a trace replay's speedup. */
export type LoadAxis = "concurrency" | "rate" | "speedup";

/** What a kind's expansion is given besides the workload: the trace windows a replay sends (`loadTraces`). */
export interface ExpandContext {
  /** One request's expected duration at the assumed rates, seconds. */
  requestSeconds: number;
  /** Trace windows by their key (`traceKey`), loaded before the sweep; absent where none is loaded. */
  traces?: ReadonlyMap<string, unknown>;
}

/** What the top level of a plan asks of the client, for a kind to put in words. */
export interface TopLevelFigures {
  /** The chunk rate in words: `12,800 chunks/s`. */
  chunks: string;
  chunksPerSecond: number;
  maxTokens: number;
  /** One request's expected duration, seconds. */
  expectedRequestSeconds: number;
}

/** What `kneeboard plan` says of a kind's sweep. */
export interface PlanWords<W, L> {
  /** The plan table's heading for its levels: `level`, `rate`, `speedup`. */
  column: string;
  /** A level in the plan table: N, `2/s`, `x2`. */
  label(load: L): string;
  /** How it sends, for the totals; null for the plain closed loop, which needs no words. */
  loop(workload: W): string | null;
  /** Its arrival after the workload's other fields (`, arrival poisson (seed 1, ...)`); empty for a closed loop. */
  arrival(workload: W): string;
  /** What the top level asks of the client. */
  topLevel(load: L, figures: TopLevelFigures): string;
  /** Lines after the workload line: what the levels send (a replayed window). */
  before(levels: readonly LevelPlanOf<L>[]): string[];
  /** Lines after the level table: what to expect of the levels (warnings). */
  after(levels: readonly LevelPlanOf<L>[], workload: W & LevelBudget, expectedRequestSeconds: number): string[];
}

/**
 * Where a kind's figures go in a run's summary: its knee and capacity in its own unit (a closed loop's
 * N: `kneeConcurrency`, `capacity`; an open loop's rate: `kneeRequestsPerSecond`,
 * `capacityRequestsPerSecond`), or nowhere (a replay's speedup is neither).
 */
export interface SummaryUnits {
  knee: "kneeConcurrency" | "kneeRequestsPerSecond" | null;
  capacity: "capacity" | "capacityRequestsPerSecond" | null;
}

/** A run's headline figures, each already in words, for a kind to say its headline with (`kneeboard run`'s report). */
export interface HeadlineParts {
  /** `812.3 tok/s at N=16`. */
  peak: string;
  /** Level 1's per-stream tok/s. */
  singleStream: string;
  /** The knee in users, `-` or `not reached`. */
  kneeUsers: string;
  /** The knee in requests/s (`4 req/s`), `-` or `not reached`. */
  kneeRate: string;
  scalingEfficiency: string;
  /** The highest rate that met the SLO, or `-`. */
  sustainsRate: string;
  /** The trace the run replayed (the run document's `trace`: its name, requests and reusable share); null when it replayed none. */
  replayed: { name: string; requests: number; reusablePromptTokenShare: number } | null;
  /** What the route reported cached, level by level. */
  cached: string;
}

/**
 * The level figures only a kind has: a run document level records them under the kind's name
 * (`level.open.achievedRatePerSecond`), null on levels of other kinds. `P` is what the level's summary
 * measured that they are made of (the registry's `FigureParts`, of which a kind reads its own part).
 */
export interface KindFigures<F, P> {
  /** The run document's schema of them (docs/run-document.md#a-levels-kind-and-its-figures). */
  schema: z.ZodType<F>;
  /** A level's figures from what its summary measured; null when it measured none of them. */
  of(parts: P): F | null;
  /** What its schedule sent, where it sends on one (an open loop, a trace replay): for charts that draw it for every such kind. */
  schedule?(figures: F): ScheduleFigures;
}

/**
 * What the workload layers (global, target, scenario) of one swept (target, scenario) set, each where
 * the last layer to set it put it: what a kind checks of its config beyond each field's own schema.
 */
export interface SweepLayers {
  /** The kind of the arrival mode the layers leave (a closed loop's when none sets one); null for a mode no kind has (left to the schema). */
  arrivalKind: string | null;
  /** That mode, as set (for a problem's words). */
  mode: unknown;
  /** Where `conversation` was set; null when no layer sets it. */
  conversation: PropertyKey[] | null;
  /** Where `concurrency` was set, and whether it is a search. */
  concurrency: { at: PropertyKey[]; search: boolean } | null;
  /** Where the last `arrival` was set (its `ratesPerSecond`), and whether its rates are a search. */
  rates: { at: PropertyKey[]; search: boolean } | null;
}

/** A problem a kind finds in its config layers: the path it is at and its words. */
export interface LayerProblem {
  at: PropertyKey[];
  message: string;
}

/**
 * What a kind's levels show in the run index and in a standing, beside every level's figures: fields
 * of a run index level (`I`, from its own figures `F`: a trace replay's reusable share, a
 * conversation's later turns' TTFT) and of a standing's level (`G`, over its valid runs' index
 * levels). Each field is nullable with a default of null: null on other kinds' levels, and in entries
 * and standings written before it was.
 */
export interface KindIndexFigures<F, I extends z.ZodRawShape, G extends z.ZodRawShape> {
  /** Its fields of a run index level: the index's `LevelFigures` composes them. */
  entry: I;
  /** Those fields of one of its levels, from its own figures (a level without them has every field null). */
  entryOf(figures: F): z.output<z.ZodObject<I>>;
  /** The standing's fields of one of its levels: `StandingLevel` composes them. */
  standing: G;
  /** Those fields over the level's valid runs, newest first. */
  standingOf(valid: readonly z.output<z.ZodObject<I>>[]): z.output<z.ZodObject<G>>;
}

/** No fields of its own in the run index or a standing (a kind whose figures are every level's). */
export type NoIndexFields = Record<never, never>;
export const NO_INDEX_FIGURES: KindIndexFigures<unknown, NoIndexFields, NoIndexFields> = {
  entry: {},
  entryOf: () => ({}),
  standing: {},
  standingOf: () => ({}),
};

/**
 * One load kind. `W` is the workload it reads (its config member among it), `L` a level's load as the
 * sweep drives it, `D` the run document's record of that load, `S` its driver's spec, `F` the level
 * figures only it has and `P` what they are made of; `I` and `G` its fields in the run index and in a
 * standing (`KindIndexFigures`).
 */
export interface LoadKind<
  W,
  L extends { kind: string },
  D extends { kind: string },
  S extends DriveSpec = DriveSpec,
  F = unknown,
  P = never,
  I extends z.ZodRawShape = z.ZodRawShape,
  G extends z.ZodRawShape = z.ZodRawShape,
> {
  /** The kind's name: its run document loads' `kind`. */
  kind: D["kind"];
  /** The run document's member for this kind (docs/run-document.md#load). */
  document: z.ZodType<D>;
  /** The level figures only it has, nested under its name on a level. */
  figures: KindFigures<F, P>;
  /** What its levels show in the run index and in a standing. */
  index: KindIndexFigures<F, I, G>;
  /** Where its levels sit on a chart and a ranking. */
  axis: LoadAxis;
  /** The levels a workload of this kind sweeps, low to high, each with its load, name and time. */
  levels(workload: W & LevelBudget, context: ExpandContext): LevelPlanOf<L>[];
  /** How the run document names what a level sent: its load, without the driver's own settings (seed, maxInFlight, the window). */
  record(load: L): D;
  /** A load's place on its axis: N, requests/s, a replay's speedup. */
  position(load: D): number;
  /** A load in words, the same in tables, pages and the CLI: `N=8`, `4 req/s`, `trace x2`. */
  words(load: D): string;
  /** True when two loads of this kind are the same traffic (the position is already equal). */
  same(a: D, b: D): boolean;
  /** A closed loop's N: the users a level holds at once; null where the kind has no N. */
  users(load: D): number | null;
  /**
   * Stream chunks per second a level asks of the client: N x the per-stream rate for a closed loop;
   * every request's answer once per send for loads sent on a schedule.
   */
  chunksPerSecond(load: L, outputTokensPerSecondPerStream: number, maxTokens: number, chunksPerToken: number): number;
  /** The search a workload asks for in place of a ladder (docs/config.md#searched-levels); null for a ladder or a kind that cannot search. */
  search(workload: W): LevelSearchSettings | null;
  /**
   * The workload fields that make its levels a ladder of the one level at `position` on its axis (a
   * searched level, run as any other); throws for a kind that cannot search.
   */
  pinned(workload: W, position: number): object;
  /** Problems in its config layers of the arrivals a sweep of this kind is sent with (a conversation's users only in a closed loop); none for most kinds. */
  arrivalProblems(layers: SweepLayers): LayerProblem[];
  /** Problems in its config layers of what a sweep sent with its arrival mode searches (a replay's speedups cannot be); none for most kinds. */
  searchProblems(layers: SweepLayers): LayerProblem[];
  /** True when the layers search this kind's levels: its searched field (`concurrency`, `arrival.ratesPerSecond`) is a search. */
  searchedIn(layers: SweepLayers): boolean;
  /** The N of each level of a workload, for kinds whose levels hold N users; null for the others. */
  userLevels(workload: W): number[] | null;
  /** The most worker threads a level can use (a thread runs at least one stream). */
  threadBound(load: L): number;
  /** Where its knee and capacity go in a run's summary. */
  summary: SummaryUnits;
  /** Its prompts share prefixes on purpose (a replay's blocks, a conversation's history): what a cache serves is the measure, not a flaw. */
  expectsCache: boolean;
  /** The rate a level offers, requests/s, where the load names one (an open loop's); null where it does not. */
  offeredRate(load: D): number | null;
  /** A run's headline in words, from its figures (`kneeboard run`'s report). */
  headline(parts: HeadlineParts): string;
  /** Lines `kneeboard run`'s report prints after the headline for one of its levels, from its own figures (a conversation's turns); none for most kinds. */
  reportLines(figures: F, words: string): string[];
  /** What `kneeboard plan` says of it. */
  plan: PlanWords<W, L>;
  /** Runs a level's measured sends. */
  driver: LevelDriver<L, S>;
}
