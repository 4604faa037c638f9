/**
 * @module Tool calls (docs/methodology.md#tool-calls): does a route work for agents? The suite of
 * prompts with tools, the scoring of each answer, the shares a run reports, and the verdict and F1
 * of a route against its model's reference route.
 */

export * from "./f1.ts";
export * from "./measures.ts";
export * from "./phase.ts";
export * from "./suite.ts";
export * from "./verdict.ts";
