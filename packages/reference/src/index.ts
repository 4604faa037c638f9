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
export { PrefixCache, type PrefixCacheOptions } from "./prefix-cache.ts";
export * from "./profiles.ts";
export {
  type ConnectionBehaviour,
  type ModelSpec,
  type ReceivedRequest,
  type ReferenceServer,
  type ResponseTiming,
  reasoningTokensOf,
  type ServerCounts,
  SIMULATED_HEADER,
  type StreamProfile,
  startReferenceServer,
  type ToolAnswerRecord,
} from "./server.ts";
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
