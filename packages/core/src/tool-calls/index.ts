/**
 * @module Tool calls (docs/methodology.md#tool-calls): does a route work for agents? The suite of
 * prompts with tools, the scoring of each answer, and the shares a run reports.
 */

export * from "./measures.ts";
export * from "./suite.ts";
