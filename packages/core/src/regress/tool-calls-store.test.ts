/**
 * @module The `tool_calls_regression` alert through the evaluation every alert goes through
 * (`evaluateStore`: index, judge, detect, `alerts.json`, the feeds), from run documents in an
 * in-memory store: a route whose arguments break is judged `worse` against its model's reference
 * route and opens one, in the target's feed and the site-wide one, and its repair resolves it;
 * notifying and mail attributes follow.
 */
import { describe, expect, it } from "vitest";
import { ALERTS_KEY, AlertsFile } from "../alerts/index.ts";
import { alertAttributes } from "../aws/sns.ts";
import { notifies } from "../notify/deliver.ts";
import { alertLines } from "../notify/format.ts";
import { slackMessage } from "../notify/webhook.ts";
import { seededRandom } from "../random/index.ts";
import type { RunDocument } from "../run/index.ts";
import { saveRun } from "../run-index/index.ts";
import { StoreRunIndex } from "../run-index/store.ts";
import type { Store } from "../store/index.ts";
import { syntheticRun, syntheticToolCalls } from "../synthetic/index.ts";
import { evaluateStore } from "./check.ts";

class MemoryStore implements Store {
  readonly data = new Map<string, string>();
  async put(key: string, body: string) {
    this.data.set(key, body);
  }
  async get(key: string) {
    return this.data.get(key) ?? null;
  }
  async list(prefix: string) {
    return [...this.data.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  async delete(keys: string[]) {
    for (const key of keys) this.data.delete(key);
  }
}

/** Run i of `targetId`, with its tool calls' arguments broken in `broken` of the answers with calls. */
function toolRun(i: number, broken: number, random: () => number, targetId = "route"): RunDocument {
  const day = new Date(Date.UTC(2026, 1, 1) + i * 6 * 3_600_000 + (targetId === "route" ? 60_000 : 0)).toISOString();
  const doc = syntheticRun({
    targetId,
    label: targetId === "route" ? "Route & co" : "The reference",
    startedAt: day,
    runId: `${targetId}-${i}`,
    model: "maker/m",
    modelKey: "m",
    singleStreamTokensPerSecond: 80,
    ttftMs: 200,
    saturationStreams: 8,
  });
  return {
    ...doc,
    toolCalls: syntheticToolCalls({ random, broken }),
    ...(targetId === "route" ? {} : { reference: true }),
  };
}

describe("tool_calls_regression through the store", () => {
  it("opens when a route's arguments break, writes it to alerts.json and the feeds, and resolves on the repair", async () => {
    const store = new MemoryStore();
    const index = new StoreRunIndex(store);
    const random = seededRandom(45);
    // Six faithful runs, two with 40 % of the arguments cut short, then faithful again.
    const broken = [0, 0, 0, 0, 0, 0, 0.4, 0.4, 0, 0];
    const states: string[] = [];
    for (const [i, share] of broken.entries()) {
      // The model's reference route runs just before each run of the route.
      await saveRun(store, index, toolRun(i, 0, random, "ref"));
      const doc = toolRun(i, share, random);
      await saveRun(store, index, doc);
      const result = await evaluateStore({ store, index, now: doc.startedAt });
      const tools = result.alerts.filter((a) => a.kind === "tool_calls_regression");
      states.push(tools.map((a) => a.state).join(",") || "-");
      if (i === 6) expect(result.changed.map((a) => a.kind)).toContain("tool_calls_regression");
    }
    expect(states).toEqual(["-", "-", "-", "-", "-", "-", "open", "open", "resolved", "resolved"]);

    const file = AlertsFile.parse(JSON.parse((await store.get(ALERTS_KEY)) as string));
    const alert = file.alerts.find((a) => a.kind === "tool_calls_regression");
    const entries = await index.entries("route");
    // The alert's measures are run 6's verdict against the reference's run 6.
    const verdict = entries[6]?.toolCallsVerdict;
    expect(verdict).toMatchObject({ verdict: "worse", cause: "lower", reference: "ref", referenceRunId: "ref-6" });
    expect(alert).toMatchObject({
      targetId: "route",
      state: "resolved",
      runIds: ["route-6", "route-7", "route-8"],
      changedAt: entries[6]?.startedAt,
      resolvedAt: entries[8]?.startedAt,
      toolCalls: { suite: "tools-v1", cause: "lower", reference: "ref", reason: verdict?.reason },
    });
    const valid = verdict?.measures.find((m) => m.measure === "argumentsValid");
    expect(alert?.toolCalls?.measures).toContainEqual({
      measure: "argumentsValid",
      prompts: 15,
      route: valid?.route,
      reference: 15,
      lost: valid?.lost,
      gained: 0,
      pValue: valid?.pValue,
    });
    // The right tool was never at fault: it stays out of the alert.
    expect(alert?.toolCalls?.measures.map((m) => m.measure)).not.toContain("rightTool");

    // The feeds: the target's and the site-wide one carry it, with its kind, its cause and its counts.
    for (const key of ["feeds/route.xml", "feeds/alerts.xml"]) {
      const feed = (await store.get(key)) as string;
      expect(feed).toContain(`<id>urn:kneeboard:alert:${alert?.id}</id>`);
      expect(feed).toContain('<category term="tool_calls_regression"/>');
      expect(feed).toContain("Cause: lower, against the reference ref: lower than the reference&apos;s");
      expect(feed).toContain(
        `argumentsValid: ${valid?.route} of 15 prompts met, the reference 15 (${valid?.lost} lost, 0 gained;`,
      );
      expect(feed).toContain(
        "Route &amp; co: Tool calls worse than its reference ref: it fails prompts its reference meets",
      );
    }

    // Delivery: it notifies, its mail body gives the cause and the measure with its counts, its attributes the measures.
    if (!alert) throw new Error("no alert");
    expect(notifies(alert)).toBe(true);
    expect(alertLines(alert)).toContain("cause: lower, against the reference ref");
    // The webhook carries the same lines: the cause and the counts.
    const slack = slackMessage(alert).blocks[0]?.text.text ?? "";
    expect(slack).toContain("cause: lower, against the reference ref\n");
    expect(slack).toContain(`schema-valid arguments: ${valid?.route}/15 prompts against the reference's 15/15`);
    expect(alertLines(alert).join("\n")).toContain(
      `schema-valid arguments: ${valid?.route}/15 prompts against the reference's 15/15 (${valid?.lost} lost, 0 gained), p = `,
    );
    expect(alertLines(alert)[2]).toBe("Tool-call regression resolved (warning) on Route & co [route]");
    expect(alertAttributes(alert).metric).toEqual({ DataType: "String", StringValue: "everyMeasure" });
  });
});
