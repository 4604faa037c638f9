/**
 * @module The page model of a scenario's compare page (`/compare/` for the first scenario,
 * `/s/<scenario>/compare/` for each): the targets to pick, the overlay specs the browser draws, the
 * build-time trade-off chart, and every target's headline figures as one table whose columns follow
 * the load axis the compared targets run on.
 */
import { concurrencyOf } from "@kneeboard/core/run";
import {
  COMPARE_TRADEOFF_TARGETS,
  type CompareChart,
  compareCharts,
  rateCompareRow,
  tradeoffTargets,
} from "../lib/compare.ts";
import { rootFrom } from "../lib/format.ts";
import { fmtRate } from "../lib/open-loop.ts";
import { targetPath } from "../lib/scenarios.ts";
import { headline, headlineFigures, rateHeadline } from "../lib/share.ts";
import { closedLoopViews, openLoopScenarios, type TargetView, viewAxis, viewsOf } from "../lib/site-data.ts";
import type { SiteIndex } from "../lib/site-index.ts";
import type { ScenarioLinks } from "./leaderboard.ts";

/** A number cell: its value, decimals, and a tooltip. */
export interface NumberCell {
  value: number | null | undefined;
  digits: number;
  title?: string;
}

/** A table of one row per target: its name linked, then numbers. */
export interface TargetTable {
  label: string;
  /** Text before a link to the scenario's leaderboard, and after it; null for no caption. */
  caption: { before: string; link: string; after: string } | null;
  columns: string[];
  rows: { id: string; label: string; href: string; cells: NumberCell[] }[];
}

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
  /** Targets of another axis in this scenario, named with links rather than overlaid. */
  apart: { label: string; href: string }[];
  leaderboardHref: string;
  numbers: TargetTable;
}

const peakN = (t: TargetView) => (t.latest.summary.peak ? concurrencyOf(t.latest.summary.peak.load) : null);

/** The compare page of one scenario at `path`. */
export function comparePage(index: SiteIndex, scenario: string, path: string): ComparePage {
  const { series, scenarios } = index;
  const root = rootFrom(path);
  // In target-id order, which no column shows: no header of the sortable table carries `aria-sort`.
  const views = viewsOf(series, scenario);
  // The closed-loop targets are compared whenever there are any; open-loop ones beside them are named, not overlaid.
  const closed = closedLoopViews(views);
  const open = closed.length === 0 && views.length > 0;
  const targets = open ? views : closed;
  const targetHref = (id: string) => `${root}${targetPath(series, scenarios, id, scenario)}`;
  const named = scenarios.length > 1 ? ` (${scenario})` : "";
  const endpoints = `${targets.length} LLM ${targets.length === 1 ? "endpoint" : "endpoints"}`;
  const inScenario = scenarios.length > 1 ? ` in scenario ${scenario}` : "";
  const charts = compareCharts(targets);
  const tradeoffSvg = index.compareTradeoff[scenario] ?? null;
  const leaderboardHref = scenarios[0] === scenario ? root : `${root}s/${scenario}/`;
  return {
    title: open ? `Compare LLM serving capacity${named}` : `Compare LLM throughput curves${named}`,
    description: open
      ? `Capacity in requests/s and throughput against the offered request rate of ${endpoints}${inScenario}, overlaid. ${targets
          .slice(0, 3)
          .map((t) => rateHeadline(t))
          .join("; ")}.`
      : `Throughput against concurrency of ${endpoints}${inScenario}, overlaid. ${targets
          .slice(0, 3)
          .map((t) => headline(headlineFigures(t)))
          .join("; ")}.`,
    path,
    root,
    heading: `Compare targets${named}`,
    loadNote: open
      ? ", against the offered request rate: requests in this scenario arrive on an open loop (Poisson, at set rates)"
      : "",
    scenarios: {
      scenarios,
      current: scenario,
      href: (s) => `${root}${s === scenarios[0] ? "compare/" : `s/${s}/compare/`}`,
      label: "The compare page of another scenario",
      openLoop: openLoopScenarios(series, scenarios),
    },
    picks: targets.map((t, i) => ({ id: t.id, label: t.label, simulated: t.simulated, checked: i < 3 })),
    charts,
    specs: Object.fromEntries(charts.map((c) => [c.measure, c.spec])),
    tradeoff:
      tradeoffSvg !== null && !open
        ? {
            svg: tradeoffSvg,
            caption: `The ${COMPARE_TRADEOFF_TARGETS} targets with the highest median peak (or every target, when there are fewer): what each user gets (per-stream tok/s p50, x) against what all get (aggregate tok/s, y), points labelled with their concurrency N where the labels do not overlap; both axes from zero. Drawn when the site was built, whatever is picked above; every target's own trade-off is on its page.`,
            rows: tradeoffTargets(targets).flatMap((t) =>
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
    apart: open
      ? []
      : views.filter((t) => viewAxis(t) !== "concurrency").map((t) => ({ label: t.label, href: targetHref(t.id) })),
    leaderboardHref,
    numbers: open ? rateNumbers(targets, targetHref, `${root}s/${scenario}/`) : concurrencyNumbers(targets, targetHref),
  };
}

function concurrencyNumbers(targets: TargetView[], href: (id: string) => string): TargetTable {
  return {
    label: "Headline figures of every target",
    caption: null,
    columns: ["single-stream tok/s", "peak aggregate tok/s", "at N", "per-stream at peak"],
    rows: targets.map((t) => {
      const { singleStream, peak } = t.latest.summary;
      return {
        id: t.id,
        label: t.label,
        href: href(t.id),
        cells: [
          { value: singleStream?.outputTokensPerSecond, digits: 1 },
          { value: peak?.aggregateOutputTokensPerSecond, digits: 0 },
          { value: peakN(t), digits: 0 },
          { value: peak?.perStreamOutputTokensPerSecond, digits: 1 },
        ],
      };
    }),
  };
}

function rateNumbers(targets: TargetView[], href: (id: string) => string, board: string): TargetTable {
  return {
    label: "Capacity in requests per second of every target",
    caption: {
      before:
        "Each target's latest run, as the curves above: capacity is the highest offered rate whose level met the SLO; achieved is the rate the client sent at it. Medians over recent runs are on the ",
      link: board,
      after: ".",
    },
    columns: ["capacity req/s", "achieved req/s", "TTFT p95 ms at capacity", "peak aggregate tok/s", "at req/s"],
    rows: targets.map((t) => {
      const r = rateCompareRow(t);
      return {
        id: t.id,
        label: t.label,
        href: href(t.id),
        cells: [
          { value: r.capacityRequestsPerSecond, digits: 2, title: fmtRate(r.capacityRequestsPerSecond) },
          { value: r.achievedRequestsPerSecond, digits: 2 },
          { value: r.ttftP95AtCapacityMs, digits: 0 },
          { value: r.peakAggregateOutputTokensPerSecond, digits: 0 },
          { value: r.peakRatePerSecond, digits: 2 },
        ],
      };
    }),
  };
}
