import { describe, expect, it } from "vitest";
import { callKey, type F1Answer, toolCallF1, toolCallF1Counts } from "./f1.ts";

const call = (name: string | null, args: unknown) => ({
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
const answer = (promptId: string, calls: F1Answer["calls"], outcome = "ok"): F1Answer => ({ promptId, outcome, calls });

describe("the tool-call F1 (name and parsed arguments equal)", () => {
  it("matches arguments whatever their key order or spacing, never unparseable ones or a missing name", () => {
    expect(callKey(call("f", '{"a": 1, "b": {"y": 2, "x": [1, 2]}}'))).toBe(
      callKey(call("f", { b: { x: [1, 2], y: 2 }, a: 1 })),
    );
    expect(callKey(call("f", '{"a": 1'))).toBeNull();
    expect(callKey(call(null, { a: 1 }))).toBeNull();
    expect(callKey(call("f", { a: [1, 2] }))).not.toBe(callKey(call("f", { a: [2, 1] })));
  });

  it("counts every pair of the route's and the reference's answers to a prompt", () => {
    const usd = call("convert_currency", { amount: 12, from: "USD", to: "EUR" });
    const weather = call("get_weather", { city: "Paris" });
    const reference = [answer("p1", [usd]), answer("p1", [usd]), answer("p2", [weather, usd])];
    const route = [
      answer("p1", [usd]), // 2 pairs, each 1 TP
      answer("p1", [call("convert_currency", '{"amount": 12, "from": "USD", "to": "E')]), // 2 pairs, each 1 FP and 1 FN
      answer("p2", [weather]), // the second parallel call dropped: 1 TP, 1 FN
      answer("p3", [weather]), // a prompt the reference did not answer: not compared
      answer("p2", [usd], "http_error"), // failed requests are not compared
    ];
    expect(toolCallF1Counts(route, reference)).toEqual({
      truePositives: 3,
      falsePositives: 2,
      falseNegatives: 3,
      prompts: 2,
    });
    // 2 x 3 / (2 x 3 + 2 + 3)
    expect(toolCallF1(route, reference)).toBeCloseTo(6 / 11, 12);
  });

  it("is 1 for an identical route, and null when neither side called a tool", () => {
    const answers = [answer("p1", [call("f", { a: 1 })]), answer("p2", [])];
    expect(toolCallF1(answers, answers)).toBe(1);
    expect(toolCallF1([answer("p2", [])], [answer("p2", [])])).toBeNull();
  });

  it("counts a call each side matched at most once: a duplicated call is a false positive", () => {
    const f = call("f", { a: 1 });
    expect(toolCallF1Counts([answer("p", [f, f])], [answer("p", [f])])).toMatchObject({
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 0,
    });
  });
});
