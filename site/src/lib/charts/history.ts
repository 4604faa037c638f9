/** @module The history chart: every run's headline figures over UTC time, with the standing interval as an optional band. */
import { figureHeading } from "@kneeboard/core/labels";
import type { TopLevelSpec } from "vega-lite";
import {
  AGGREGATE_COLOR,
  CHART_COLORS,
  CONFIG,
  PER_STREAM_COLOR,
  PLOT_WIDTH,
  present,
  SCHEMA,
  THROUGHPUT_SCALE,
} from "./shared.ts";

/** Where a band around a history series lies: its low and high at a time (e.g. a standing interval over its window). */
export interface BandPoint {
  startedAt: string;
  low: number;
  high: number;
}

/** Optional bands for the history panels; a constant interval is two points (window start and end). */
export interface HistoryBands {
  peakAggregate?: BandPoint[];
  singleStream?: BandPoint[];
}

/**
 * One run as the history chart draws it: the fields of the site index's `HistoryPoint` that the chart
 * reads, declared here so the chart family depends on nothing in `lib/` (which depends on it).
 */
export interface HistoryRun {
  startedAt: string;
  status: "complete" | "partial" | "failed";
  valid: boolean;
  singleStreamOutputTokensPerSecond: number | null;
  peakAggregateOutputTokensPerSecond: number | null;
}

const DAY_MS = 86_400_000;

/**
 * A UTC time axis whose labels always carry the date: days when the runs span a few days or more,
 * date and time within a short span (a label `:45` alone says nothing about when).
 */
export function timeAxis(times: string[]) {
  const ms = times.map((t) => Date.parse(t)).filter(Number.isFinite);
  const spanMs = ms.length ? Math.max(...ms) - Math.min(...ms) : 0;
  const days = spanMs / DAY_MS;
  const axis =
    days >= 3
      ? { format: "%Y-%m-%d", tickCount: { interval: "day" as const, step: Math.max(1, Math.ceil(days / 4)) } }
      : { format: "%Y-%m-%d %H:%M", tickCount: 3 };
  return {
    field: "startedAt",
    type: "temporal" as const,
    title: "run started (UTC)",
    scale: { type: "utc" as const },
    axis: { ...axis, labelAngle: 0, labelOverlap: true },
  };
}

/** Run states as point shapes: a partial or invalid run stays visible, told apart by its marker. */
const RUN_STATES = ["complete and valid", "partial or invalid"] as const;

/**
 * Headline figures over time, one panel each: every run a point, joined by straight segments, on a
 * zero-based axis, with an optional band (the standing interval) behind the points.
 */
export function historySpec(input: { title: string; points: HistoryRun[]; bands?: HistoryBands }): TopLevelSpec {
  const rows = (pick: (p: HistoryRun) => number | null) =>
    present(
      input.points.map((p) => ({
        startedAt: p.startedAt,
        run: p.valid && p.status === "complete" ? RUN_STATES[0] : RUN_STATES[1],
        value: pick(p),
      })),
    );
  const x = timeAxis([
    ...input.points.map((p) => p.startedAt),
    ...[...(input.bands?.peakAggregate ?? []), ...(input.bands?.singleStream ?? [])].map((b) => b.startedAt),
  ]);
  // Smaller markers when runs crowd the panel, so neighbours stay apart.
  const pointSize = input.points.length > 60 ? 12 : 45;
  const panel = (
    title: string,
    color: string,
    pick: (p: HistoryRun) => number | null,
    band: BandPoint[] | undefined,
  ) => {
    const y = { field: "value", type: "quantitative" as const, title: "tok/s", scale: THROUGHPUT_SCALE };
    return {
      title,
      width: PLOT_WIDTH,
      height: 120,
      layer: [
        ...(band?.length
          ? [
              {
                data: { values: band },
                mark: { type: "area" as const, color: CHART_COLORS.band, interpolate: "linear" as const },
                encoding: {
                  x,
                  y: { ...y, field: "low" },
                  y2: { field: "high" },
                },
              },
            ]
          : []),
        {
          data: { values: rows(pick) },
          layer: [
            { mark: { type: "line" as const, color, interpolate: "linear" as const }, encoding: { x, y } },
            {
              // No per-point ARIA: the SVG is one named image with the runs table beside it, and a
              // label per point would make a long history several times heavier.
              mark: { type: "point" as const, color, filled: true, size: pointSize, opacity: 1, aria: false },
              encoding: {
                x,
                y,
                shape: {
                  field: "run",
                  type: "nominal" as const,
                  title: "run",
                  scale: { domain: [...RUN_STATES], range: ["circle", "cross"] },
                  legend: { orient: "bottom" as const, direction: "horizontal" as const, labelLimit: 0 },
                },
              },
            },
          ],
        },
      ],
    };
  };
  // Only the figures some run has: an open loop has no single-stream figure, and an empty panel drew an axis from 0 to 0.
  const figures = [
    {
      words: "peak aggregate output tokens per second",
      heading: figureHeading("peakAggregateOutputTokensPerSecond"),
      color: AGGREGATE_COLOR,
      pick: (p: HistoryRun) => p.peakAggregateOutputTokensPerSecond,
      band: input.bands?.peakAggregate,
    },
    {
      words: "single-stream output tokens per second",
      heading: figureHeading("singleStreamOutputTokensPerSecond"),
      color: PER_STREAM_COLOR,
      pick: (p: HistoryRun) => p.singleStreamOutputTokensPerSecond,
      band: input.bands?.singleStream,
    },
  ].filter((f) => rows(f.pick).length > 0);
  const said = figures.map((f) => f.words).join(" and ");
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `${said.charAt(0).toUpperCase()}${said.slice(1)} of every run, over time: one point per run (a cross when the run was partial or invalid), joined by straight lines, on axes from zero${input.bands ? ", with the standing interval as a shaded band" : ""}.`,
    config: CONFIG,
    resolve: { scale: { shape: "shared" } },
    vconcat: figures.map((f) => panel(f.heading, f.color, f.pick, f.band)),
  } as TopLevelSpec;
}
