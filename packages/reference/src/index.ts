/** @module Simulated OpenAI-compatible targets with known throughput, for demos and tests. */
export { Engine, type EngineProfile, type ExpectedThroughput, expectedThroughput, InFlightStats } from "./engine.ts";
export * from "./profiles.ts";
export { type ModelSpec, type ReferenceServer, type StreamProfile, startReferenceServer } from "./server.ts";
export { normal, type SyntheticRunOptions, seededRandom, syntheticRun } from "./synthetic.ts";
