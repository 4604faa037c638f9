/** @module Simulated OpenAI-compatible targets with known throughput, for demos and tests. */

export { normal, seededRandom } from "@kneeboard/core/random";
export { Engine, type EngineProfile, type ExpectedThroughput, expectedThroughput, InFlightStats } from "./engine.ts";
export * from "./profiles.ts";
export {
  type ModelSpec,
  type ReferenceServer,
  type ResponseTiming,
  type StreamProfile,
  startReferenceServer,
} from "./server.ts";
export { type SyntheticRunOptions, syntheticRun } from "./synthetic.ts";
