/** @module Writes the example trace (examples/traces/synthetic-mooncake.jsonl) from its seed: generated here, never downloaded. */
import { writeFileSync } from "node:fs";
import { syntheticMooncakeTrace } from "../src/trace/synthetic.ts";

const path = "examples/traces/synthetic-mooncake.jsonl";
writeFileSync(new URL(`../../../${path}`, import.meta.url), syntheticMooncakeTrace());
console.log(`wrote ${path}`);
