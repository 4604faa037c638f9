/** @module The throughput-interactivity trade-off chart: per-stream against aggregate tok/s, one line per target through its levels. */
import type { TopLevelSpec } from "vega-lite";
import { AGGREGATE_TITLE, AXES, type LevelSeries, type LoadAxis, PER_STREAM_TITLE } from "./axis.ts";
import {
  AGGREGATE_COLOR,
  AGGREGATE_SHAPE,
  CHART_COLORS,
  CONFIG,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  SCHEMA,
  SERIES_LEGEND,
  SMALL_FONT_SIZE,
  THROUGHPUT_SCALE,
} from "./shared.ts";

/**
 * The throughput-interactivity trade-off: per-stream tok/s p50 (x, what one user gets) against
 * aggregate tok/s (y, what the fleet gets), one line per target through its levels in order along
 * their load axis, points labelled with their position ("N=8") where a label has room (see `placeLabels`); both
 * axes from zero. Invalid levels are left out.
 */
export function tradeoffSpec(input: { title: string; axis: LoadAxis; series: LevelSeries[] }): TopLevelSpec {
  const a = AXES[input.axis];
  const values = input.series.flatMap((s) =>
    s.levels
      .filter(
        (l) =>
          l.valid &&
          l.aggregateOutputTokensPerSecond !== null &&
          l.perStreamOutputTokensPerSecondP50 !== null &&
          Number.isFinite(l.aggregateOutputTokensPerSecond) &&
          Number.isFinite(l.perStreamOutputTokensPerSecondP50),
      )
      .map((l) => ({
        targetId: s.targetId,
        target: s.label,
        [input.axis]: l.position,
        perStream: l.perStreamOutputTokensPerSecondP50 as number,
        aggregate: l.aggregateOutputTokensPerSecond as number,
        label: a.label(l.position),
      })),
  );
  const placed = placeLabels(values);
  const x = { field: "perStream", type: "quantitative" as const, title: PER_STREAM_TITLE, scale: THROUGHPUT_SCALE };
  const y = { field: "aggregate", type: "quantitative" as const, title: AGGREGATE_TITLE, scale: THROUGHPUT_SCALE };
  const several = input.series.length > 1;
  const legend = SERIES_LEGEND;
  const byTarget = several
    ? {
        color: { field: "target", type: "nominal" as const, title: "target", legend },
        shape: { field: "target", type: "nominal" as const, title: "target", legend },
      }
    : {};
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Aggregate output tokens per second (y) against per-stream output tokens per second, median (x), both axes from zero; ${several ? "one line per target (colour and marker shape per target)" : "one line"} through its levels in order along the load axis, points labelled with their ${a.name} where the labels do not overlap.`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    data: { values: placed },
    layer: [
      {
        mark: {
          type: "line",
          interpolate: "linear",
          ...(several ? {} : { color: AGGREGATE_COLOR }),
          point: { filled: true, size: 50, ...(several ? {} : { color: AGGREGATE_COLOR, shape: AGGREGATE_SHAPE }) },
        },
        encoding: { x, y, order: { field: input.axis, type: "quantitative" }, ...byTarget },
      },
      ...PLACEMENTS.map((p) => ({
        transform: [{ filter: { field: "placement", equal: p.name } }],
        mark: {
          type: "text",
          align: p.dx > 0 ? "left" : "right",
          dx: p.dx,
          dy: p.dy,
          fontSize: SMALL_FONT_SIZE,
          color: CHART_COLORS.ink,
        },
        encoding: { x, y, text: { field: "label", type: "nominal" } },
      })),
    ],
  } as TopLevelSpec;
}

/** Where a point's label may sit, tried in this order: above right, below right, above left, below left (offsets in px from the point to the text's baseline). */
const PLACEMENTS = [
  { name: "ne", dx: 6, dy: -6 },
  { name: "se", dx: 6, dy: 16 },
  { name: "nw", dx: -6, dy: -6 },
  { name: "sw", dx: -6, dy: 16 },
] as const;

/** The top of d3's "nice" domain vega gives a zero-based linear scale: `max` rounded up to a 1, 2 or 5 step of about a tenth of it. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const raw = max / 10;
  const power = 10 ** Math.floor(Math.log10(raw));
  const error = raw / power;
  const step = power * (error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1);
  return Math.ceil(max / step) * step;
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * Each point's label placement, or null where every placement would cover another label or point (two
 * routes' N=8 on top of each other): the chart's numbers table has every point. Positions are worked
 * out on the chart's own scales (zero-based, nice) in SVG pixels; a label is about 0.62 em a character.
 */
export function placeLabels<T extends { perStream: number; aggregate: number; label: string }>(
  rows: T[],
): (T & { placement: string | null })[] {
  const xMax = niceMax(Math.max(0, ...rows.map((r) => r.perStream)));
  const yMax = niceMax(Math.max(0, ...rows.map((r) => r.aggregate)));
  const at = rows.map((r) => ({
    x: (r.perStream / xMax) * PLOT_WIDTH,
    y: PLOT_HEIGHT - (r.aggregate / yMax) * PLOT_HEIGHT,
  }));
  const marker = 5;
  const taken: Box[] = at.map((p) => ({
    left: p.x - marker,
    right: p.x + marker,
    top: p.y - marker,
    bottom: p.y + marker,
  }));
  return rows.map((r, i) => {
    const p = at[i] as { x: number; y: number };
    const width = r.label.length * 0.62 * SMALL_FONT_SIZE;
    for (const c of PLACEMENTS) {
      const left = c.dx > 0 ? p.x + c.dx : p.x + c.dx - width;
      const box = { left, right: left + width, top: p.y + c.dy - SMALL_FONT_SIZE, bottom: p.y + c.dy + 2 };
      const inside = box.left >= -4 && box.right <= PLOT_WIDTH + 30 && box.top >= -10 && box.bottom <= PLOT_HEIGHT;
      if (inside && !taken.some((t, j) => j !== i && overlaps(box, t))) {
        taken.push(box);
        return { ...r, placement: c.name };
      }
    }
    return { ...r, placement: null };
  });
}
