/**
 * @module The run index's tool-call fields as issue 45's contract fixes them (`toolCalls`, a run's
 * brief, and `toolCallsVerdict`), for the readers of the index (site, downloads, the
 * `tool_calls_regression` alert). tools-core owns the brief's shape; this copy keeps the readers
 * building until its branch merges, and gives way to it then. The verdict is tools-judge's.
 */
import { z } from "zod";

/** The measures of a tool-call run, in the order pages list them. */
export const TOOL_MEASURES = [
  "callWhenNeeded",
  "noCallWhenNone",
  "rightTool",
  "argumentsParse",
  "argumentsValid",
  "argumentValues",
  "parallelBoth",
  "finishReason",
  "structuredOutput",
] as const;
export type ToolMeasure = (typeof TOOL_MEASURES)[number];

/** A share with its count and Wilson 95 % interval; share, low and high null when trials is 0. */
export const Share = z.object({
  successes: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
  share: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
});
export type Share = z.infer<typeof Share>;

export const ToolCallsBrief = z.object({
  suite: z.string(),
  support: z.enum(["supported", "no-tool-support"]),
  shares: z.object(Object.fromEntries(TOOL_MEASURES.map((m) => [m, Share])) as Record<ToolMeasure, typeof Share>),
});
export type ToolCallsBrief = z.infer<typeof ToolCallsBrief>;

export { ToolCallsVerdict } from "../tool-calls/verdict.ts";
