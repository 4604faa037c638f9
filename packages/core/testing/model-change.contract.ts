/**
 * @module The `model_change` alert's contract on a store and its run index: a route of a model whose
 * same-model verdict turns from same to differs opens one alert through the evaluation every alert
 * goes through (`evaluateStore`: index, judge, detect, `alerts.json`, feeds), and it resolves when the
 * route matches its reference again. Run on the folder store and on the AWS store alike.
 */
import { describe, expect, it } from "vitest";
import { ALERTS_KEY, AlertsFile } from "../src/alerts/index.ts";
import { evaluateStore } from "../src/regress/check.ts";
import type { RunDocument } from "../src/run/index.ts";
import { type RunIndex, saveRun } from "../src/run-index/index.ts";
import { drawnCanary } from "../src/same-model/canary.fixture.ts";
import type { Store } from "../src/store/index.ts";
import { syntheticRun } from "../src/synthetic/index.ts";

/** One run of model `m` on target `targetId`, with a canary drawn faithful or perturbed. */
function canaryRun(targetId: string, startedAt: string, seed: number, perturbed: boolean): RunDocument {
  const doc = syntheticRun({
    targetId,
    startedAt,
    runId: `${targetId}-${seed}`,
    model: "maker/m",
    modelKey: "m",
    singleStreamTokensPerSecond: 80,
    ttftMs: 200,
    saturationStreams: 8,
  });
  const canary = drawnCanary({ seed, ...(perturbed ? { distortion: { rankShiftProbability: 0.5 } } : {}) });
  return { ...doc, ...(targetId === "maker" ? { reference: true } : {}), canary };
}

export function modelChangeContract(name: string, make: () => Promise<{ store: Store; index: RunIndex }>): void {
  describe(`model_change alerts on ${name}`, () => {
    it("opens one when a route's verdict turns from same to differs, and resolves it when it matches again", async () => {
      const { store, index } = await make();
      // Rounds of (reference, route): the route serves the model twice, a distorted copy twice, then the model.
      const perturbed = [false, false, true, true, false];
      const states: string[][] = [];
      for (const [round, bent] of perturbed.entries()) {
        const day = `2025-02-0${round + 1}`;
        await saveRun(store, index, canaryRun("maker", `${day}T06:00:00.000Z`, 100 + round, false));
        await saveRun(store, index, canaryRun("route", `${day}T06:05:00.000Z`, 200 + round, bent));
        const result = await evaluateStore({ store, index, now: `${day}T07:00:00Z` });
        const model = result.alerts.filter((a) => a.kind === "model_change");
        states.push(model.map((a) => `${a.targetId}:${a.state}`));
        if (round === 2) expect(result.changed.map((a) => a.kind)).toEqual(["model_change"]);
      }
      expect(states).toEqual([[], [], ["route:open"], ["route:open"], ["route:resolved"]]);
      const file = AlertsFile.parse(JSON.parse((await store.get(ALERTS_KEY)) as string));
      const alert = file.alerts.find((a) => a.kind === "model_change");
      expect(alert).toMatchObject({
        targetId: "route",
        state: "resolved",
        changedAt: "2025-02-03T06:05:00.000Z",
        resolvedAt: "2025-02-05T06:05:00.000Z",
        runIds: ["route-202", "route-203"],
        sameModel: { reference: "maker", cause: "distribution" },
      });
      expect(alert?.title).toMatch(/No longer the same model as its reference maker/);
      // Every verdict is on the index: the reference's own runs as the reference, the route's judged.
      const entries = await index.entries("route");
      expect(entries.map((e) => e.sameModel?.verdict)).toEqual(["same", "same", "differs", "differs", "same"]);
      expect(await store.get("feeds/route.xml")).toContain(alert?.title.replace(/&/g, "&amp;").slice(0, 40));
    });
  });
}
