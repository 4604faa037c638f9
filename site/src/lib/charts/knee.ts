/** @module The knee marker, one layer for every chart against a load axis that shows it: a dashed rule at the knee, labelled `knee: N`. */
import type { AxisEncoding } from "./axis.ts";
import { CHART_COLORS, FONT_SIZE, PLOT_HEIGHT } from "./shared.ts";

/** The knee marker's colours: the rule's, and its label's. */
export interface KneeColors {
  rule: string;
  label: string;
}

/** The page's muted rule and ink label (CSS variables, so the marker follows dark mode). */
export const KNEE_COLORS: KneeColors = { rule: CHART_COLORS.muted, label: CHART_COLORS.ink };

/**
 * The knee layer to spread into a chart's `layer`: none without a knee, else a dashed rule at the
 * knee's position on the chart's own x axis (its load axis), and its label just right of the rule near the top.
 */
export function kneeLayer(knee: number | null, x: AxisEncoding, colors: KneeColors = KNEE_COLORS) {
  return knee === null
    ? []
    : [
        {
          data: { values: [{ [x.field]: knee, label: `knee: ${knee}` }] },
          layer: [
            { mark: { type: "rule" as const, strokeDash: [4, 4], color: colors.rule }, encoding: { x } },
            {
              mark: {
                type: "text" as const,
                align: "left" as const,
                dx: 4,
                // From the plot's middle (where a text mark with no y sits) to just under its top.
                dy: -PLOT_HEIGHT / 2 + FONT_SIZE,
                fontSize: FONT_SIZE,
                color: colors.label,
              },
              encoding: { x, text: { field: "label", type: "nominal" as const } },
            },
          ],
        },
      ];
}
