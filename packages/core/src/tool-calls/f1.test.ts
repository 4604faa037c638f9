import { describe, expect, it } from "vitest";
import { callKey, exactCallF1, exactCallF1Counts, type F1Answer, triggerF1, triggerF1Counts } from "./f1.ts";

const call = (name: string | null, args: unknown) => ({
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
const answer = (promptId: string, calls: F1Answer["calls"], outcome = "ok"): F1Answer => ({ promptId, outcome, calls });

describe("the exact call F1 (name and parsed arguments equal)", () => {
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
      answer("p2", [usd], "http_error"), // a failed request: no calls, so both of the reference's are missed
    ];
    expect(exactCallF1Counts(route, reference)).toEqual({
      truePositives: 3,
      falsePositives: 2,
      falseNegatives: 5,
      prompts: 2,
    });
    // 2 x 3 / (2 x 3 + 2 + 5)
    expect(exactCallF1(route, reference)).toBeCloseTo(6 / 13, 12);
    // The reference's failed requests are left out: they say nothing of what the model calls.
    expect(exactCallF1Counts(route, [...reference, answer("p1", [], "incomplete")])).toEqual(
      exactCallF1Counts(route, reference),
    );
  });

  it("is 1 for an identical route, and null when neither side called a tool", () => {
    const answers = [answer("p1", [call("f", { a: 1 })]), answer("p2", [])];
    expect(exactCallF1(answers, answers)).toBe(1);
    expect(exactCallF1([answer("p2", [])], [answer("p2", [])])).toBeNull();
  });

  it("counts a call each side matched at most once: a duplicated call is a false positive", () => {
    const f = call("f", { a: 1 });
    expect(exactCallF1Counts([answer("p", [f, f])], [answer("p", [f])])).toMatchObject({
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 0,
    });
  });
});

describe("the trigger F1 (Kimi Vendor Verifier's tool_call_f1: did each side call at all)", () => {
  const f = call("f", { a: 1 });
  const g = call("g", '{"broken');
  it("counts pairs by whether each side called, whatever the calls were", () => {
    const reference = [answer("p1", [f]), answer("p2", [f]), answer("p3", [])];
    const route = [
      answer("p1", [g]), // called where the reference did, wrongly: still a trigger true positive
      answer("p2", []), // no call where the reference called: a false negative
      answer("p3", [f]), // a call where the reference made none: a false positive
      answer("p1", [f], "http_error"), // a failed request triggers nothing: a false negative
    ];
    expect(triggerF1Counts(route, reference)).toEqual({
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 2,
      prompts: 3,
    });
    expect(triggerF1(route, reference)).toBeCloseTo(2 / 5, 12);
    // The exact call F1 tells them apart: the true positive of p1's broken call is no match.
    expect(exactCallF1(route, reference)).toBeCloseTo(0, 12);
  });

  it("is 0 for a route that never calls where its reference always does, null when neither calls", () => {
    expect(triggerF1([answer("p", [])], [answer("p", [f])])).toBe(0);
    expect(triggerF1([answer("p", [])], [answer("p", [])])).toBeNull();
  });
});
