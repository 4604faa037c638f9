/**
 * @module The `tool_calls_regression` alert on histories of run index entries with their tool-call
 * verdicts: a run judged `worse` opens it with the verdict's cause and measures, runs still worse
 * grow it, a run judged `same` resolves it; a route that took tools and begins to refuse them opens
 * one too. The verdicts are the verdict's own, on simulated phases (./../tool-calls).
 */
import { describe, expect, it } from "vitest";
import { Alert } from "../alerts/index.ts";
import { alertLines } from "../notify/format.ts";
import { indexEntryFor, type RunIndexEntry } from "../run-index/index.ts";
import { syntheticRun } from "../synthetic/index.ts";
import { type Behaviour, phaseOf, referenceRun, routeRun } from "../tool-calls/simulate.test-helpers.ts";
import { TOOLS_V2, type ToolPrompt } from "../tool-calls/suite.ts";
import { toolCallsVerdicts } from "../tool-calls/verdict.ts";
import { detectAlerts } from "./index.ts";

const BASE = indexEntryFor(
  "runs/route/base.json",
  syntheticRun({
    targetId: "route",
    runId: "base",
    startedAt: "2026-01-01T00:00:00.000Z",
    singleStreamTokensPerSecond: 80,
    ttftMs: 200,
    saturationStreams: 8,
  }),
);
const needsCall = (p: ToolPrompt) => p.expected.length > 0;
const right = phaseOf(TOOLS_V2, () => "right", 1);

/** Run i of the route, its phase behaving `how` on the prompts `where` picks, judged against a faithful reference. */
function run(
  i: number,
  how: Behaviour | "refused" | "unjudged" = "right",
  where: (p: ToolPrompt) => boolean = needsCall,
): RunIndexEntry {
  const startedAt = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
  const entry = {
    ...BASE,
    key: `runs/route/${String(i).padStart(4, "0")}.json`,
    runId: `r${i}`,
    startedAt,
    finishedAt: startedAt,
  };
  const shares = BASE.toolCalls?.shares as never;
  if (how === "refused")
    return {
      ...entry,
      toolCalls: { suite: "tools-v2", support: "no-tool-support", shares },
      toolCallsVerdict: toolCallsVerdicts([
        referenceRun(right),
        routeRun("route", { ...right, support: "no-tool-support" }),
      ]).route,
    };
  const phase = how === "unjudged" ? right : phaseOf(TOOLS_V2, (p) => (where(p) ? how : "right"), 1);
  const verdict = toolCallsVerdicts(
    how === "unjudged" ? [routeRun("route", phase)] : [referenceRun(right), routeRun("route", phase)],
  ).route;
  return { ...entry, toolCalls: { suite: "tools-v2", support: "supported", shares }, toolCallsVerdict: verdict };
}

const toolAlerts = (alerts: Alert[]) => alerts.filter((a) => a.kind === "tool_calls_regression");

describe("tool_calls_regression follows the verdict", () => {
  it("opens on the first run judged worse, grows while it stays worse, and resolves on the first run judged same", () => {
    const history = [run(0), run(1), run(2, "words"), run(3, "words"), run(4, "unjudged"), run(5), run(6)];
    const [alert, ...others] = toolAlerts(detectAlerts(history));
    expect(others).toEqual([]);
    expect(alert).toMatchObject({
      state: "resolved",
      severity: "critical",
      changedAt: history[2]?.startedAt,
      resolvedAt: history[5]?.startedAt,
      runIds: ["r2", "r3", "r5"],
      toolCalls: { suite: "tools-v2", cause: "stopped_calling", reference: "ref" },
    });
    // The measures found lower, with their paired counts: every prompt that needed a call was lost.
    const calling = alert?.toolCalls?.measures.find((m) => m.measure === "callWhenNeeded");
    expect(calling).toMatchObject({ prompts: 75, route: 0, reference: 75, lost: 75, gained: 0 });
    expect(alert?.title).toMatch(
      /^.+: Tool calls worse than its reference ref: it stopped calling tools \(every measure 45\/120 prompts against 120\/120; call when needed \(trigger\) 0\/75 prompts against 75\/75; .+, and \d+ more\)$/,
    );
  });

  it("opens on a route that keeps calling but breaks its arguments, as a warning, and says so in its notification", () => {
    const parallel = (p: ToolPrompt) => p.kind === "parallel";
    const [alert] = toolAlerts(detectAlerts([run(0), run(1, "dropSecond", parallel)]));
    expect(alert).toMatchObject({ state: "open", severity: "warning", toolCalls: { cause: "lower" } });
    expect(alert?.toolCalls?.measures.map((m) => m.measure)).toEqual(
      expect.arrayContaining(["everyMeasure", "rightTool", "parallelBoth"]),
    );
    const text = alertLines(alert as Alert).join("\n");
    expect(text).toContain("\ncause: lower, against the reference ref\n");
    expect(text).toMatch(/\nright tools: 50\/75 prompts against the reference's 75\/75 \(25 lost, 0 gained\), p = /);
  });

  it("opens when a route that took tools begins to refuse them, and never for one that always refused", () => {
    const [alert] = toolAlerts(detectAlerts([run(0), run(1, "refused"), run(2, "refused")]));
    expect(alert).toMatchObject({
      state: "open",
      severity: "critical",
      runIds: ["r1", "r2"],
      toolCalls: { cause: "no_tool_support", measures: [] },
    });
    expect(alert?.title).toMatch(/: Tool calls refused: the route no longer takes tools$/);
    expect(toolAlerts(detectAlerts([run(0, "refused"), run(1, "refused")]))).toEqual([]);
  });

  it("says nothing while the route is judged same, or not judged at all", () => {
    expect(toolAlerts(detectAlerts([run(0), run(1), run(2, "unjudged"), run(3, "words", () => false)]))).toEqual([]);
  });

  it("still reads an alert recorded before it followed the verdict, and renders its shares", () => {
    const old = Alert.parse({
      ...toolAlerts(detectAlerts([run(0), run(1, "words")]))[0],
      toolCalls: {
        suite: "tools-v1",
        measures: [
          {
            measure: "argumentsValid",
            before: { median: 1, low: 0.97, high: 1, n: 6 },
            after: { successes: 30, trials: 60, share: 0.5, low: 0.38, high: 0.62 },
          },
        ],
      },
    });
    expect(alertLines(old)).toContain(
      "schema-valid arguments: 100 % (97 %-100 %, 6 runs) → 50 % (38 %-62 %, 30 of 60)",
    );
  });
});
