/** @module Writes the published JSON Schemas (config, run document) into schemas/. */
import { writeFileSync } from "node:fs";
import { schemaFiles } from "../src/config/schemas.ts";

for (const [path, text] of Object.entries(schemaFiles())) {
  writeFileSync(new URL(`../../../${path}`, import.meta.url), text);
  console.log(`wrote ${path}`);
}
