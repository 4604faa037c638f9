/** @module The published JSON Schemas, as the text of their files under schemas/. */
import { z } from "zod";
import { RunDocument } from "../run/index.ts";
import { configJsonSchema } from "./index.ts";

/** Repository-relative path -> file text, for the write script and the freshness test. */
export function schemaFiles(): Record<string, string> {
  const run = {
    $id: "https://kneeboard.dev/schemas/run.schema.json",
    title: "kneeboard run document",
    ...z.toJSONSchema(RunDocument),
  };
  return {
    "schemas/config.schema.json": `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
    "schemas/run.schema.json": `${JSON.stringify(run, null, 2)}\n`,
  };
}
