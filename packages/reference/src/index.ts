/** @module Simulated OpenAI-compatible targets with known throughput, for demos and tests. */

export { normal, seededRandom } from "@kneeboard/core/random";
export { type SyntheticRunOptions, syntheticRun } from "@kneeboard/core/synthetic";
export { Engine, type EngineProfile, type ExpectedThroughput, expectedThroughput, InFlightStats } from "./engine.ts";
export {
  type ExpectedLevel,
  type ExpectedPricing,
  type ExpectedReaderFigures,
  type ExpectedSlo,
  expectedReaderFigures,
  expectedSaturationRequestsPerSecond,
} from "./expected.ts";
export type { ReceivedRequest, ResponseTiming, ToolAnswerRecord } from "./log.ts";
export { PrefixCache, type PrefixCacheOptions } from "./prefix-cache.ts";
export * from "./profiles.ts";
export {
  type ConnectionBehaviour,
  type ReferenceServer,
  type ServerCounts,
  SIMULATED_HEADER,
  startReferenceServer,
} from "./server.ts";
export { type ModelSpec, reasoningTokensOf, type StreamProfile } from "./stream-profile.ts";
export {
  argumentsText,
  assembleDeltas,
  exampleOf,
  isToolRequest,
  type PlannedCall,
  planToolAnswer,
  splitInsideCharacter,
  suitePromptOf,
  TOOL_BREAKAGES,
  type ToolAnswerPlan,
  type ToolBreakage,
  type ToolBreakageRates,
  type ToolDialect,
  type ToolsProfile,
  toolDeltas,
  toolMessage,
} from "./tools.ts";
