/**
 * @module The published JSON Schema (schemas/config.schema.json, what an editor checks a config
 * against through `$schema`) and the parser accept and reject the same configs: every example, and
 * bad configs of each kind the schema can say. Checks that need the whole file (unique ids, ascending
 * levels, scenarios a target names, the key variables) are the parser's alone, so none is sampled.
 * Every property of the schema carries a description naming its unit and default, checked against
 * the defaults the code applies.
 */
import { readdirSync, readFileSync } from "node:fs";
import {
  DEFAULT_CANARY,
  DEFAULT_SCHEDULE,
  DEFAULT_SLO,
  DEFAULT_STANDING,
  DEFAULT_WORKLOAD,
  parseConfig,
} from "@kneeboard/core/config";
import { ConfigError } from "@kneeboard/core/errors";
import { DEFAULT_PLAN_ASSUMPTIONS } from "@kneeboard/core/plan";
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

type Node = Record<string, unknown>;

/**
 * Every property of a JSON Schema, by its path (`targets[].route|oneOf0.provider`): the properties of
 * objects, of arrays' items, of a record's values (additionalProperties), of anyOf / oneOf / allOf
 * members and of $defs, however deep.
 */
function properties(node: unknown, path = ""): [string, Node][] {
  if (typeof node !== "object" || node === null) return [];
  const n = node as Node;
  const found: [string, Node][] = [];
  for (const [key, property] of Object.entries((n.properties ?? {}) as Node)) {
    found.push([`${path}.${key}`, property as Node], ...properties(property, `${path}.${key}`));
  }
  for (const item of [n.items].flat()) found.push(...properties(item, `${path}[]`));
  found.push(...properties(n.additionalProperties, `${path}.<name>`));
  for (const of of ["anyOf", "oneOf", "allOf"])
    for (const [i, member] of ((n[of] ?? []) as unknown[]).entries())
      found.push(...properties(member, `${path}|${of}${i}`));
  for (const [name, def] of Object.entries((n.$defs ?? {}) as Node)) found.push(...properties(def, `$defs.${name}`));
  return found;
}

const described = (node: Node) => typeof node.description === "string" && node.description.trim() !== "";

/** The description of the property at `path`, as `properties` names it. */
function description(path: string): string {
  const property = properties(schema).find(([at]) => at === path)?.[1];
  if (!property) throw new Error(`no property ${path} in the schema`);
  return String(property.description);
}

/** A default as a description says it: `Default 120.`, `Default [1, 2, 4, 8, 16, 32].` */
const defaultWords = (value: unknown) => `Default ${Array.isArray(value) ? `[${value.join(", ")}]` : String(value)}`;

describe("schemas/config.schema.json explains every field", () => {
  it("finds properties wherever a schema nests them, and the ones without a description", () => {
    const nested = {
      properties: {
        a: { description: "a", type: "array", items: { properties: { b: { type: "number" } } } },
        c: { anyOf: [{ type: "boolean" }, { properties: { d: { description: "d" } } }] },
        e: { oneOf: [{ properties: { f: {} } }], additionalProperties: { properties: { g: {} } } },
      },
      $defs: { H: { properties: { i: { description: " " } } } },
    };

    const missing = properties(nested)
      .filter(([, property]) => !described(property))
      .map(([path]) => path);

    expect(missing).toEqual([".a[].b", ".c", ".e", ".e.<name>.g", ".e|oneOf0.f", "$defs.H.i"]);
  });

  it("has a description on every property", () => {
    const all = properties(schema);
    const missing = all.filter(([, property]) => !described(property)).map(([path]) => path);

    // The walk reached the nested members: targets, routes, arrivals, canary, conversations, scenarios.
    expect(all.length).toBeGreaterThan(150);
    expect(all.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        ".targets[].route|oneOf3.verify|anyOf1.bodyField",
        ".workload.arrival|oneOf3.blockSize",
        ".workload.canary|anyOf1.samplesPerPrompt",
        ".scenarios.<name>.conversation.thinkSeconds",
      ]),
    );
    expect(missing).toEqual([]);
  });

  it("names a field's unit and its default", () => {
    expect(description(".workload.requestTimeoutSeconds")).toMatch(/\bseconds\b.*\bDefault 120\b/);
    expect(description(".workload.streamIdleTimeoutSeconds")).toMatch(/\bseconds\b.*\bDefault 30\b/);
    expect(description(".workload.slo.maxTtftMs")).toMatch(/\bms\b.*\bDefault 2000\b/);
    expect(description(".workload.slo.minOutputTokensPerSecond")).toMatch(/\btok\/s\b.*\bDefault 20\b/);
    expect(description(".workload.maxTokens")).toMatch(/\btokens\b.*\bDefault 128\b/);
    expect(description(".workload.conversation.thinkSeconds")).toMatch(/\bseconds\b.*\bDefault 0\b/);
    expect(description(".workload.arrival|oneOf1.ratesPerSecond")).toMatch(/requests\/s/);
    expect(description(".standing.windowHours")).toMatch(/\bhours\b.*\bDefault 72\b/);
    expect(description(".targets[].pricing|anyOf1.hourlyUsd")).toMatch(/\bUSD\b/);
  });

  it("says the defaults the code applies", () => {
    const workload = ".workload";
    const expected: [string, unknown][] = [
      ...(
        [
          "concurrency",
          "promptTokens",
          "maxTokens",
          "requestsPerLevel",
          "warmupRequests",
          "temperature",
          "requestTimeoutSeconds",
          "streamIdleTimeoutSeconds",
          "ignoreEos",
        ] as const
      ).map((field): [string, unknown] => [`${workload}.${field}`, DEFAULT_WORKLOAD[field]]),
      ...(["minOutputTokensPerSecond", "maxTtftMs"] as const).map((field): [string, unknown] => [
        `${workload}.slo.${field}`,
        DEFAULT_SLO[field],
      ]),
      ...(["samplesPerPrompt", "maxTokens", "concurrency"] as const).map((field): [string, unknown] => [
        `${workload}.canary|anyOf1.${field}`,
        DEFAULT_CANARY[field],
      ]),
      ...(["windowHours", "maxRuns"] as const).map((field): [string, unknown] => [
        `.standing.${field}`,
        DEFAULT_STANDING[field],
      ]),
      [".schedule", DEFAULT_SCHEDULE],
      [".targets[].expectedOutputTokensPerSecond", DEFAULT_PLAN_ASSUMPTIONS.outputTokensPerSecondPerStream],
    ];
    for (const [path, value] of expected) expect(description(path), path).toContain(defaultWords(value));

    // Wherever the schema itself carries a scalar default (seed, maxInFlight, blockSize, ...), the words say it too.
    for (const [path, property] of properties(schema))
      if (property.default !== undefined && typeof property.default !== "object")
        expect(String(property.description), path).toContain(defaultWords(property.default));
  });
});
