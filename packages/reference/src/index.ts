/** @module Simulated OpenAI-compatible targets with known throughput, for demos and tests. */

export { normal, seededRandom } from "@kneeboard/core/random";
export { type SyntheticRunOptions, syntheticRun } from "@kneeboard/core/synthetic";
export { Engine, type EngineProfile, type ExpectedThroughput, expectedThroughput, InFlightStats } from "./engine.ts";
export * from "./profiles.ts";
export { type ModelSpec, type ReferenceServer, type StreamProfile, startReferenceServer } from "./server.ts";
