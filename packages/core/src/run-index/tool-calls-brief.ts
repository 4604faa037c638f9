/**
 * @module The run index's tool-call fields as issue 45's contract fixes them (`toolCalls`, a run's
 * brief, and `toolCallsVerdict`), for the readers of the index (site, downloads, the
 * `tool_calls_regression` alert). tools-core owns the brief (it writes it when indexing a run); this
 * copy keeps the readers building until that part merges, and gives way to it then. The verdict is
 * tools-judge's.
 */
import { z } from "zod";
import { type RunDocument, ToolCallShare, ToolCallShares } from "../run/index.ts";

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

/** A share with its count and Wilson 95 % interval (the run document's). */
export const Share = ToolCallShare;
export type Share = ToolCallShare;

export const ToolCallsBrief = z.object({
  suite: z.string(),
  support: z.enum(["supported", "no-tool-support"]),
  shares: ToolCallShares,
});
export type ToolCallsBrief = z.infer<typeof ToolCallsBrief>;

export { ToolCallsVerdict } from "../tool-calls/verdict.ts";

/** A run document's tool-call phase in brief, for its index entry; null when it had none. */
export function toolCallsBriefOf(doc: Pick<RunDocument, "toolCalls">): ToolCallsBrief | null {
  const tc = doc.toolCalls;
  return tc ? { suite: tc.suite, support: tc.support, shares: tc.shares } : null;
}
