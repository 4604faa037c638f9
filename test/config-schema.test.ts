/**
 * @module The published JSON Schema (schemas/config.schema.json, what an editor checks a config
 * against through `$schema`) and the parser accept and reject the same configs: every example, and
 * bad configs of each kind the schema can say. Checks that need the whole file (unique ids, ascending
 * levels, scenarios a target names, the key variables) are the parser's alone, so none is sampled.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseConfig } from "@kneeboard/core/config";
import { ConfigError } from "@kneeboard/core/errors";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");
const schema = JSON.parse(read("schemas/config.schema.json"));

const ajv = new Ajv2020({ allErrors: true });
// zod's URL check, as far as a format can say it (the http(s) protocol is the parser's alone).
ajv.addFormat("uri", (text: string) => URL.canParse(text));
const validate = ajv.compile(schema);

/** Whether the parser takes `config` (keys are not looked up: the schema cannot see the environment). */
function parses(config: unknown): boolean {
  try {
    parseConfig(JSON.stringify(config), { requireKeys: false });
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

const target = {
  id: "t",
  label: "a target",
  baseURL: "http://127.0.0.1:8787/v1",
  model: "m",
  route: { gateway: "direct" },
};
const smallest = { $schema: "../schemas/config.schema.json", targets: [target] };
const examples = readdirSync(new URL("examples/", ROOT)).filter((f) => f.endsWith(".json"));

/** name, config, and whether both must take it. */
const samples: [string, unknown, boolean][] = [
  ...examples.map((f): [string, unknown, boolean] => [`examples/${f}`, JSON.parse(read(`examples/${f}`)), true]),
  ["the smallest config, with $schema", smallest, true],
  ["no $schema", { targets: [target] }, true],
  ["$schema not a string", { ...smallest, $schema: 5 }, false],
  ["no targets", { $schema: smallest.$schema }, false],
  ["an empty target list", { targets: [] }, false],
  ["an unknown key", { ...smallest, workload: { maxTokenz: 8 } }, false],
  ["temperature above 2", { ...smallest, workload: { temperature: 3 } }, false],
  ["maxTokens not whole", { ...smallest, workload: { maxTokens: 1.5 } }, false],
  ["a target id with a space", { targets: [{ ...target, id: "Bad Id" }] }, false],
  ["an unknown gateway", { targets: [{ ...target, route: { gateway: "nope" } }] }, false],
  ["a target without a model", { targets: [{ ...target, model: undefined }] }, false],
  ["poisson without rates", { ...smallest, workload: { arrival: { mode: "poisson" } } }, false],
  [
    "a trace of an unknown format",
    { ...smallest, workload: { arrival: { mode: "trace", file: "t", format: "csv" } } },
    false,
  ],
  ["a schedule of neither rate nor cron", { ...smallest, schedule: "every hour" }, false],
  ["canary neither boolean nor object", { ...smallest, workload: { canary: "yes" } }, false],
];

describe("schemas/config.schema.json against parseConfig", () => {
  it.each(samples.map(([name, config, valid]) => ({ name, config, valid })))(
    "$name: valid $valid to both",
    ({ config, valid }) => {
      expect(validate(config), JSON.stringify(validate.errors)).toBe(valid);
      expect(parses(config)).toBe(valid);
    },
  );

  it("every example names the schema by a path that reaches it", () => {
    for (const f of examples) {
      const { $schema } = JSON.parse(read(`examples/${f}`));
      expect($schema, f).toBe("../schemas/config.schema.json");
      const linked = new URL($schema, new URL(`examples/${f}`, ROOT));
      expect(JSON.parse(readFileSync(linked, "utf8")).$id).toBe(schema.$id);
    }
  });
});
