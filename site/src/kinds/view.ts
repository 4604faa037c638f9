/**
 * @module What a load kind's view is: everything the site shows differently for one kind of load, in
 * one object (`KindView`), as an ESLint rule holds its `meta` and `create`. Each kind's module
 * (`closed.ts`, `open.ts`, `trace.ts`, `conversation.ts`) exports one; `index.ts` lists them. Pages
 * ask the registry and never test a kind themselves.
 */
import type { Load } from "@kneeboard/core/run";
import type { Standing } from "@kneeboard/core/standing";
import type { LoadAxis } from "../lib/charts/index.ts";
import type { CompareMeasure, TargetTable } from "../lib/compare.ts";
import type { CapacityBracket } from "../lib/leaderboard.ts";
import type { RankingContext, RankingTable, RoutesTable } from "../lib/rankings.ts";
import type { HistoryPoint, TargetView } from "../lib/site-data.ts";
import type { Headline } from "../lib/table.ts";
import type { ModelContext, SectionDef, TargetContext } from "../lib/target-charts.ts";

/** A load as the downloads' cells (`runs.csv`, `standing.csv`): each empty where the kind has none. */
export interface LoadCells {
  concurrency: number | null;
  ratePerSecond: number | null;
  burstiness: number | null;
  speedup: number | null;
}

/** What a model page's routes table needs of its page. */
export interface RoutesContext {
  /** A route's target page, from the site root. */
  targetHref: (id: string) => string;
  /** The SLO in words. */
  slo: string;
  modelKey: string;
}

/** One load kind as the site shows it. */
export interface KindView {
  /**
   * The chart axis its levels are placed on: its title, scale, tick format and how a position is
   * labelled are `AXES[axis]` (lib/charts/axis.ts), an axis two kinds may share (a conversation's
   * users are a closed loop's concurrency); a level's place on it is `loadPosition` of its load.
   */
  axis: LoadAxis;
  /** How a table names a level: the level column's head, a level's cell from its position, and the client table's in-flight column. */
  level: { head: string; cell: (position: number) => string; inFlight: string };
  /** The runs table's last column, a figure of each run in this kind's unit. */
  run: { head: string; cell: (h: HistoryPoint) => string };
  /** A target's headline in one line, as a pasted link or a model page's description says it. */
  headline: (view: TargetView) => string;
  /** A target page's title (before its scenario) and description. */
  title: (view: TargetView) => string;
  description: (view: TargetView) => string;
  /** A target page's headline figures. */
  headlines: (c: TargetContext) => Headline[];
  /** Said after a scenario's name where every target of the scenario is of this kind (`request rates`); null for nothing. */
  scenarioNote: string | null;
  /** The leaderboard: this kind's ranking, and the page's title and description where it leads the page. */
  board: {
    ranking: (views: readonly TargetView[], ctx: RankingContext) => RankingTable;
    title: (scenario: string) => string;
    description: (views: TargetView[], scenario: string, scenarioCount: number) => string;
  };
  /** A target page's sections, each its figures and their tables as one unit, in page order (the history follows). */
  target: readonly SectionDef<TargetContext>[];
  /** A model page's part for its routes of this kind: a heading and note, the routes ranked as a table, and the sections. */
  model: {
    heading: string;
    note: string | null;
    routes: (routes: TargetView[], ctx: RoutesContext) => RoutesTable;
    sections: readonly SectionDef<ModelContext>[];
  };
  /** The compare page where this kind leads the scenario. */
  compare: {
    title: string;
    /** Said of the load in the lead; empty for nothing. */
    loadNote: string;
    description: (targets: TargetView[], endpoints: string, inScenario: string) => string;
    charts: readonly CompareMeasure[];
    numbers: (targets: TargetView[], href: (id: string) => string, board: string) => TargetTable;
    /** A build-time trade-off chart (per-stream against aggregate tok/s) of the best-ranked targets. */
    tradeoff: boolean;
  };
  /** True when its levels are a concurrency N, so each N has a leaderboard (`at/<N>/`) and a model page a table per N. */
  atN: boolean;
  /** Its loads as the downloads' cells, and the standing's knee in this kind's unit (null where the kind has none). */
  csv: (load: Load) => LoadCells;
  knee: (standing: Standing) => number | null;
  /** The capacity bracket its leaderboard shows, in its unit (`index.json`'s `capacityBracket`); null where the kind has no capacity. */
  capacityBracket: (view: TargetView) => CapacityBracket | null;
}
