/**
 * @module The page model of a scenario's compare page (`/compare/` for the first scenario,
 * `/s/<scenario>/compare/` for each): the targets to pick, the overlay specs the browser draws, the
 * build-time trade-off chart, and every target's headline figures as one table. The kind that leads
 * the scenario (the registry's order) is compared, in its view's words and columns; targets of other
 * kinds are named apart. Past the leaderboard's row budget (`lib/fold.ts`) the page compares the
 * routes `/` shows, each model's best, and links each model's page for the rest: a page of every
 * route's curves and figures would be megabytes at a thousand routes.
 */
import { DEFAULT_STANDING } from "@kneeboard/core/config";
import { concurrencyOf } from "@kneeboard/core/run";
import { KIND_NAMES, KINDS, type KindName, kindsAmong, scenarioNotes, viewsOfKind } from "../kinds/index.ts";
import {
  COMPARE_TRADEOFF_TARGETS,
  type CompareChart,
  compareCharts,
  type TargetTable,
  tradeoffTargets,
} from "../lib/compare.ts";
import { foldRanking } from "../lib/fold.ts";
import { rootFrom } from "../lib/format.ts";
import type { RankingContext } from "../lib/rankings.ts";
import { modelPath, targetPath } from "../lib/scenarios.ts";
import { type TargetView, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import type { ScenarioLinks } from "./leaderboard.ts";

export type { NumberCell, TargetTable } from "../lib/compare.ts";

export interface ComparePage {
  title: string;
  description: string;
  path: string;
  root: string;
  heading: string;
  /** Said of the load in the lead, e.g. that requests arrive on an open loop; empty for a closed loop. */
  loadNote: string;
  scenarios: ScenarioLinks;
  picks: { id: string; label: string; simulated: boolean; checked: boolean }[];
  charts: CompareChart[];
  /** The specs the browser draws, by measure. */
  specs: Record<string, unknown>;
  /** The build-time trade-off chart and its numbers; null where the targets have no concurrency. */
  tradeoff: {
    svg: string;
    caption: string;
    rows: {
      id: string;
      label: string;
      n: number | null;
      perStream: number | null;
      aggregate: number | null;
      valid: boolean;
    }[];
  } | null;
  /** The compared kind (`src/kinds/index.ts`): the page's `data-kind`. */
  kind: KindName;
  /** Targets of another kind in this scenario, named with links rather than overlaid. */
  apart: { label: string; href: string }[];
  leaderboardHref: string;
  numbers: TargetTable;
  /** Where the scenario has more targets than the page compares: how many, and each model with routes left out; null where every target is compared. */
  folded: CompareFold | null;
}

/** What a compare page past the row budget leaves out: each such model's page compares every route of it. */
export interface CompareFold {
  compared: number;
  of: number;
  /** Routes of a model the page compares at most. */
  perModel: number;
  models: { modelKey: string; href: string; routes: number }[];
}

/**
 * The targets a compare page holds: those the scenario's leaderboard shows (each model's best routes,
 * within its row budget; all of them below it), in the order given, and what that leaves out.
 */
function comparedTargets(
  targets: TargetView[],
  kind: KindName,
  ctx: RankingContext,
  root: string,
): { compared: TargetView[]; folded: CompareFold | null } {
  const ranked = KINDS[kind].board.ranking(targets, ctx);
  const { table, fold } = foldRanking(ranked, ctx.modelHref);
  if (fold === null) return { compared: targets, folded: null };
  const shown = new Set(table.groups.flatMap((g) => g.rows.map((r) => r.id)));
  const routes = new Map<string, { all: number; shown: number }>();
  for (const r of ranked.groups.flatMap((g) => g.rows)) {
    const n = routes.get(r.modelKey) ?? { all: 0, shown: 0 };
    n.all++;
    if (shown.has(r.id)) n.shown++;
    routes.set(r.modelKey, n);
  }
  const compared = targets.filter((t) => shown.has(t.id));
  const models = [...routes]
    .filter(([, n]) => n.shown < n.all)
    .map(([modelKey, n]) => ({ modelKey, href: `${root}${ctx.modelHref(modelKey)}`, routes: n.all }));
  return { compared, folded: { compared: compared.length, of: targets.length, perModel: fold.perModel, models } };
}

/** The compare page of one scenario at `path`. */
export function comparePage(index: SiteIndex, scenario: string, path: string): ComparePage {
  const { series, scenarios } = index;
  const root = rootFrom(path);
  // In target-id order, which no column shows: no header of the sortable table carries `aria-sort`.
  const views = viewsOf(series, scenario);
  // The kind that leads the scenario is compared; targets of other kinds beside them are named, not overlaid.
  const kind = kindsAmong(views)[0] ?? (KIND_NAMES[0] as KindName);
  const view = KINDS[kind];
  const all = viewsOfKind(views, kind);
  const { compared: targets, folded } = comparedTargets(
    all,
    kind,
    {
      scenario,
      named: scenarios.length > 1,
      section: false,
      targetHref: (id) => targetPath(series, scenarios, id, scenario),
      modelHref: (key) => modelPath(series, scenarios, key, scenario),
      window: all[0]?.standing.window ?? DEFAULT_STANDING,
    },
    root,
  );
  const targetHref = (id: string) => `${root}${targetPath(series, scenarios, id, scenario)}`;
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const endpoints = `${all.length} LLM ${all.length === 1 ? "endpoint" : "endpoints"}`;
  const inScenario = scenarios.length > 1 ? ` in scenario ${scenario}` : "";
  const charts = compareCharts(targets, view.axis, view.compare.charts);
  const tradeoffSvg = index.compareTradeoff[scenario] ?? null;
  const leaderboardHref = scenarios[0] === scenario ? root : `${root}s/${scenario}/`;
  return {
    title: `${view.compare.title}${named}`,
    description: view.compare.description(all, endpoints, inScenario),
    path,
    root,
    heading: `Compare targets${named}`,
    loadNote: view.compare.loadNote,
    scenarios: {
      scenarios,
      current: scenario,
      href: (s) => `${root}${s === scenarios[0] ? "compare/" : `s/${s}/compare/`}`,
      label: "The compare page of another scenario",
      notes: scenarioNotes(series, scenarios),
    },
    picks: targets.map((t, i) => ({ id: t.id, label: t.label, simulated: t.simulated, checked: i < 3 })),
    charts,
    specs: Object.fromEntries(charts.map((c) => [c.measure, c.spec])),
    tradeoff:
      tradeoffSvg !== null && view.compare.tradeoff
        ? {
            svg: tradeoffSvg,
            caption: `The ${COMPARE_TRADEOFF_TARGETS} targets with the highest median peak (or every target, when there are fewer): what each user gets (per-stream tok/s p50, x) against what all get (aggregate tok/s, y), points labelled with their concurrency N where the labels do not overlap; both axes from zero. Drawn when the site was built, whatever is picked above; every target's own trade-off is on its page.`,
            rows: tradeoffTargets(all).flatMap((t) =>
              t.latest.levels.map((l) => ({
                id: t.id,
                label: t.label,
                n: concurrencyOf(l.load),
                perStream: l.perStreamOutputTokensPerSecondP50,
                aggregate: l.aggregateOutputTokensPerSecond,
                valid: l.valid,
              })),
            ),
          }
        : null,
    kind,
    apart: views.filter((t) => !all.includes(t)).map((t) => ({ label: t.label, href: targetHref(t.id) })),
    leaderboardHref,
    numbers: view.compare.numbers(targets, targetHref, `${root}s/${scenario}/`),
    folded,
  };
}
