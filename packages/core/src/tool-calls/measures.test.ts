import { describe, expect, it } from "vitest";
import { holdsValues, promptResults, scoreAnswer, sharesOf, TOOL_MEASURES, validAgainst, wilson } from "./measures.ts";
import { TOOL_SUITE, TOOL_SUITES, TOOLS_V1, TOOLS_V2, type ToolPrompt } from "./suite.ts";

const prompt = (id: string) => TOOLS_V1.prompts.find((p) => p.id === id) as ToolPrompt;
const ok = (
  calls: { name: string | null; arguments: string }[],
  finishReason = "tool_calls",
  content: string | null = null,
) => ({
  outcome: "ok",
  finishReason,
  calls,
  content,
});
const counted = (score: ReturnType<typeof scoreAnswer>) =>
  Object.fromEntries(TOOL_MEASURES.filter((m) => score[m].trials === 1).map((m) => [m, score[m].successes]));

describe.each([
  [TOOLS_V1, [10, 5, 5, 4]],
  [TOOLS_V2, [50, 25, 25, 20]],
])("the suite $id", (suite, sizes) => {
  it("has prompts of the four kinds, unique ids and messages, and expected calls valid against their tools' schemas", () => {
    const kinds = suite.prompts.map((p) => p.kind);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(suite.prompts).toHaveLength(total);
    expect(new Set(suite.prompts.map((p) => p.id)).size).toBe(total);
    expect(new Set(suite.prompts.map((p) => JSON.stringify(p.messages))).size).toBe(total);
    expect(["one-call", "no-call", "parallel", "structured"].map((k) => kinds.filter((x) => x === k).length)).toEqual(
      sizes,
    );
    for (const p of suite.prompts) {
      expect(p.expected.length).toBe({ "one-call": 1, "no-call": 0, parallel: 2, structured: 0 }[p.kind]);
      for (const e of p.expected) {
        const tool = p.tools.find((t) => t.name === e.name);
        expect(tool, `${p.id} offers ${e.name}`).toBeDefined();
        // Every expected call fixes every argument it needs: it is a valid call on its own.
        expect(validAgainst(tool?.parameters ?? {}, e.arguments), `${p.id} ${e.name}`).toBe(true);
      }
      expect(p.kind === "structured").toBe(p.responseSchema !== undefined && p.tools.length === 0);
      // Every schema compiles under Ajv's strict mode (a typo would throw) and rejects an empty object.
      for (const schema of [
        ...p.tools.map((t) => t.parameters),
        ...(p.responseSchema ? [p.responseSchema.schema] : []),
      ])
        expect(validAgainst(schema, {})).toBe(false);
    }
  });
});

it("publishes tools-v2 for new runs and keeps tools-v1 readable: v2 starts with v1's prompts, unchanged", () => {
  expect(TOOL_SUITE).toBe(TOOLS_V2);
  expect([...TOOL_SUITES.keys()]).toEqual(["tools-v1", "tools-v2"]);
  expect(TOOLS_V2.prompts.slice(0, 24)).toEqual(TOOLS_V1.prompts);
});

describe("scoreAnswer", () => {
  const usdEur = prompt("currency-usd-eur");
  it("counts a right call on every call measure, and a wrong value only on argumentValues", () => {
    expect(
      counted(
        scoreAnswer(usdEur, ok([{ name: "convert_currency", arguments: '{"amount":12.0,"from":"USD","to":"EUR"}' }])),
      ),
    ).toEqual({
      callWhenNeeded: 1,
      rightTool: 1,
      argumentsParse: 1,
      argumentsValid: 1,
      argumentValues: 1,
      finishReason: 1,
    });
    expect(
      counted(
        scoreAnswer(usdEur, ok([{ name: "convert_currency", arguments: '{"amount":12,"from":"usd","to":"EUR"}' }])),
      ),
    ).toMatchObject({
      argumentsValid: 0,
      argumentValues: 0,
      argumentsParse: 1,
    });
  });
  it("text where a call was needed fails the call and every argument measure: it never drops out of them", () => {
    expect(counted(scoreAnswer(usdEur, ok([], "stop", "12 USD is about 11 EUR.")))).toEqual({
      callWhenNeeded: 0,
      rightTool: 0,
      argumentsParse: 0,
      argumentsValid: 0,
      argumentValues: 0,
      finishReason: 1,
    });
  });
  it("a truncated argument fails parse and valid; stop after a call fails finishReason", () => {
    expect(
      counted(scoreAnswer(usdEur, ok([{ name: "convert_currency", arguments: '{"amount":12,"fr' }], "stop"))),
    ).toMatchObject({
      argumentsParse: 0,
      argumentsValid: 0,
      argumentValues: 0,
      finishReason: 0,
    });
  });
  it("a dropped or doubled call fails rightTool (a multiset) and parallelBoth, whether the two tools differ or not", () => {
    const p = prompt("weather-and-stock");
    const weather = {
      name: "get_weather",
      arguments: '{"location":{"city":"Berlin","country":"DE"},"unit":"fahrenheit"}',
    };
    expect(counted(scoreAnswer(p, ok([weather])))).toMatchObject({ parallelBoth: 0, argumentValues: 0, rightTool: 0 });
    const same = prompt("currency-two");
    const a = { name: "convert_currency", arguments: '{"amount":100,"from":"EUR","to":"GBP"}' };
    expect(counted(scoreAnswer(same, ok([a])))).toMatchObject({ parallelBoth: 0, rightTool: 0, argumentsValid: 1 });
    const one = prompt("currency-usd-eur");
    const usd = { name: "convert_currency", arguments: '{"amount":12,"from":"USD","to":"EUR"}' };
    expect(counted(scoreAnswer(one, ok([usd, usd])))).toMatchObject({ rightTool: 0, argumentValues: 1 });
    const stock = { name: "get_stock_price", arguments: '{"exchange":"XETRA","symbol":"SAP"}' };
    expect(counted(scoreAnswer(p, ok([stock, weather])))).toMatchObject({
      parallelBoth: 1,
      argumentValues: 1,
      rightTool: 1,
    });
  });
  it("two calls of one tool must match the two expected calls one to one", () => {
    const p = prompt("currency-two");
    const a = { name: "convert_currency", arguments: '{"amount":100,"from":"EUR","to":"GBP"}' };
    const b = { name: "convert_currency", arguments: '{"amount":50,"from":"CHF","to":"JPY"}' };
    expect(scoreAnswer(p, ok([a, b])).argumentValues.successes).toBe(1);
    expect(scoreAnswer(p, ok([a, a])).argumentValues.successes).toBe(0);
    expect(scoreAnswer(p, ok([a, a])).parallelBoth.successes).toBe(1);
  });
  it("a call to a no-call prompt, structured output, and a failed request", () => {
    const none = prompt("none-haiku");
    expect(counted(scoreAnswer(none, ok([], "stop", "Rain on the roof")))).toEqual({
      noCallWhenNone: 1,
      finishReason: 1,
    });
    expect(counted(scoreAnswer(none, ok([{ name: "search_web", arguments: '{"query":"haiku"}' }])))).toEqual({
      noCallWhenNone: 0,
      finishReason: 1,
    });
    const person = prompt("json-person");
    expect(
      scoreAnswer(person, ok([], "stop", '{"name":"Ada Lovelace","birth_year":1815,"city":"London"}')).structuredOutput,
    ).toEqual({ trials: 1, successes: 1 });
    expect(
      scoreAnswer(person, ok([], "stop", '{"name":"Ada Lovelace","birth_year":"1815","city":"London"}'))
        .structuredOutput.successes,
    ).toBe(0);
    // A failed request fails every measure of its prompt, a right answer's included.
    const right = ok([{ name: "convert_currency", arguments: '{"amount":12,"from":"USD","to":"EUR"}' }]);
    expect(counted(scoreAnswer(usdEur, { ...right, outcome: "incomplete" }))).toEqual({
      callWhenNeeded: 0,
      rightTool: 0,
      argumentsParse: 0,
      argumentsValid: 0,
      argumentValues: 0,
      finishReason: 0,
    });
    expect(counted(scoreAnswer(person, { ...ok([], "stop", "{}"), outcome: "http_error" }))).toEqual({
      structuredOutput: 0,
      finishReason: 0,
    });
  });
});

describe("promptResults", () => {
  const usdEur = prompt("currency-usd-eur");
  const right = ok([{ name: "convert_currency", arguments: '{"amount":12,"from":"USD","to":"EUR"}' }]);
  it("meets a measure only when every answer to the prompt met it, and says nothing without answers", () => {
    expect(promptResults(usdEur, [right, right]).argumentsValid).toBe(true);
    const cut = ok([{ name: "convert_currency", arguments: '{"amount":12,' }]);
    expect(promptResults(usdEur, [right, cut, right])).toMatchObject({ argumentsValid: false, callWhenNeeded: true });
    expect(promptResults(usdEur, [])).toEqual({});
    expect(Object.keys(promptResults(prompt("none-haiku"), [ok([], "stop", "Rain")]))).toEqual([
      "noCallWhenNone",
      "finishReason",
    ]);
  });
});

describe("holdsValues and wilson", () => {
  it("compares fixed values", () => {
    expect(holdsValues({ a: 1, b: { c: "x" } }, { a: 1.0, b: { c: "x", d: 2 }, e: 3 })).toBe(true);
    expect(holdsValues({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(holdsValues({ a: "X" }, { a: "x" })).toBe(false);
  });
  it("gives Wilson's interval: 8 of 10 is [0.490, 0.943]; 0 of n starts at 0 and n of n ends at 1", () => {
    const w = wilson(8, 10);
    expect(w.share).toBe(0.8);
    expect(w.low).toBeCloseTo(0.4902, 3);
    expect(w.high).toBeCloseTo(0.9433, 3);
    expect(wilson(0, 5)).toMatchObject({ low: 0, share: 0 });
    expect(wilson(5, 5)).toMatchObject({ high: 1, share: 1 });
    expect(wilson(0, 0)).toEqual({ successes: 0, trials: 0, share: null, low: null, high: null });
    expect(sharesOf([]).rightTool.trials).toBe(0);
  });
});
