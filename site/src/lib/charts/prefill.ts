/** @module The prefill curve: how TTFT grows with the prompt, one point per closed-loop scenario of one target. */
import type { TopLevelSpec } from "vega-lite";
import {
  AGGREGATE_COLOR,
  AGGREGATE_SHAPE,
  CHART_COLORS,
  CONFIG,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  SCHEMA,
  SMALL_FONT_SIZE,
} from "./shared.ts";

/** One point of a target's prefill curve: one scenario's prompt tokens and its TTFT p50 at concurrency 1. */
export interface PrefillPoint {
  scenario: string;
  promptTokens: number;
  ttftP50Ms: number;
}

export const PROMPT_TOKENS_TITLE = "prompt tokens";

/**
 * TTFT p50 at level 1 (one request alone, so no queueing) against the scenario's prompt tokens, both
 * axes from zero, straight segments between the measured points, each labelled with its scenario.
 */
export function prefillSpec(input: { title: string; points: PrefillPoint[] }): TopLevelSpec {
  const values = input.points.map((p) => ({ ...p, label: p.scenario }));
  const x = {
    field: "promptTokens",
    type: "quantitative" as const,
    title: PROMPT_TOKENS_TITLE,
    scale: { zero: true, nice: true },
  };
  const y = { field: "ttftP50Ms", type: "quantitative" as const, title: "TTFT p50 ms, alone", scale: { zero: true } };
  return {
    $schema: SCHEMA,
    title: input.title,
    description: `Time to first token, p50 at level 1 (one request alone), against the prompt's tokens: one point per scenario (${values.map((v) => v.scenario).join(", ")}), both axes from zero.`,
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    config: CONFIG,
    data: { values },
    layer: [
      {
        mark: {
          type: "line",
          interpolate: "linear",
          color: AGGREGATE_COLOR,
          point: { filled: true, size: 50, color: AGGREGATE_COLOR, shape: AGGREGATE_SHAPE },
        },
        encoding: { x, y, order: { field: "promptTokens", type: "quantitative" } },
      },
      {
        mark: { type: "text", align: "left", dx: 6, dy: -6, fontSize: SMALL_FONT_SIZE, color: CHART_COLORS.ink },
        encoding: { x, y, text: { field: "label", type: "nominal" } },
      },
    ],
  } as TopLevelSpec;
}
