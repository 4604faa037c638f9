/**
 * @module A conversation's figures by turn: TTFT p50 (top) and the share of prompt tokens the route
 * reported cached (bottom), one line per concurrency level, against the turn. With a prompt cache the
 * later turns' TTFT stays near the first's and their cached share rises; without one TTFT grows with
 * the history re-sent each turn.
 */
import type { TopLevelSpec } from "vega-lite";
import { CONFIG, PANEL_HEIGHT, PLOT_WIDTH, present, SCHEMA, SERIES_LEGEND } from "./shared.ts";

/** One turn of one level's conversations. */
export interface TurnPoint {
  /** The level, in words (`N=4`). */
  level: string;
  turn: number;
  ttftP50Ms: number | null;
  /** Cached prompt tokens over prompt tokens, 0..1; null when the route reported none. */
  cachedShare: number | null;
}

export function turnsSpec(input: { title: string; points: TurnPoint[] }): TopLevelSpec {
  const turns = [...new Set(input.points.map((p) => p.turn))].sort((a, b) => a - b);
  const x = {
    field: "turn",
    type: "quantitative" as const,
    title: "turn of the conversation",
    scale: { domain: [Math.min(...turns), Math.max(...turns)] },
    axis: { values: turns, format: "d" },
  };
  const level = { field: "level", type: "nominal" as const, title: "level", legend: SERIES_LEGEND };
  const panel = (title: string, axisTitle: string, pick: (p: TurnPoint) => number | null, format?: string) => ({
    title,
    width: PLOT_WIDTH,
    height: PANEL_HEIGHT,
    data: { values: present(input.points.map((p) => ({ level: p.level, turn: p.turn, value: pick(p) }))) },
    mark: { type: "line" as const, interpolate: "linear" as const, point: { filled: true, size: 50 } },
    encoding: {
      x,
      y: {
        field: "value",
        type: "quantitative" as const,
        title: axisTitle,
        scale: { zero: true, nice: true },
        ...(format ? { axis: { format } } : {}),
      },
      color: level,
      shape: level,
      order: { field: "turn", type: "quantitative" as const },
    },
  });
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Time to first token p50 in milliseconds (top) and the share of prompt tokens the route reported cached (bottom), both from zero, against the turn of the conversation (${turns.join(", ")}); one line per concurrency level.`,
    config: CONFIG,
    resolve: { scale: { color: "shared", shape: "shared" } },
    vconcat: [
      panel("time to first token, p50", "TTFT p50 ms", (p) => p.ttftP50Ms),
      panel("prompt tokens reported cached", "cached share", (p) => p.cachedShare, ".0%"),
    ],
  } as TopLevelSpec;
}
