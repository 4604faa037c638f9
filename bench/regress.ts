/**
 * @module Regression detection figures for `npm run bench`: false alarms on stable seeded series and
 * detection delay after a step, printed, never asserted. Series are run index entries built directly
 * (exact run-to-run CoV on each continuous metric, independent noise), the inputs `detectAlerts` sees.
 */

import { detectAlerts } from "@kneeboard/core/regress";
import type { RunIndexEntry } from "@kneeboard/core/run-index";
import { normal, seededRandom } from "@kneeboard/reference";

const BASE = { singleStream: 60, ttftMs: 400, peak: 800 };

/** One valid, complete run whose headline figures are the base times `scale` (TTFT divided), with noise. */
function entry(index: number, cov: number, random: () => number, scale = 1): RunIndexEntry {
  const noisy = (v: number) => v * (1 + cov * normal(random));
  const startedAt = new Date(Date.UTC(2025, 0, 1) + index * 3_600_000).toISOString();
  const singleStream = noisy(BASE.singleStream);
  const peak = noisy(BASE.peak * scale);
  const ttft = noisy(BASE.ttftMs);
  const level = (number: number, concurrency: number, aggregate: number) => ({
    level: number,
    load: { kind: "closed" as const, concurrency },
    probe: null,
    aggregateOutputTokensPerSecond: aggregate,
    perStreamOutputTokensPerSecondP50: aggregate / concurrency,
    ttftP50Ms: ttft,
    ttftP95Ms: ttft * 1.2,
    ttftP99Ms: ttft * 1.3,
    e2eP50Ms: 2000,
    e2eP95Ms: 2400,
    e2eP99Ms: 2600,
    sent: 64,
    ok: 64,
    rateLimited: 0,
    valid: true,
    ttftAnswerP50Ms: null,
    meetsSlo: null,
    meteredUsdPerMillionOutputTokens: null,
    declaredUsdPerMillionOutputTokens: null,
    invalidReasons: [],
    goodputOutputTokensPerSecond: null,
    sloFigures: null,
    aggregateWindow: null,
    cachedPromptTokenShare: null,
    reusablePromptTokenShare: null,
    laterTurnsTtftP50Ms: null,
    conversation: null,
  });
  return {
    key: `runs/bench/${index}.json`,
    targetId: "bench",
    scenario: "chat",
    runId: `r${index}`,
    label: "bench",
    model: "bench",
    modelKey: null,
    route: { gateway: "direct" },
    slo: null,
    startedAt,
    finishedAt: startedAt,
    status: "complete",
    partialReason: null,
    simulated: true,
    summary: {
      singleStream: {
        outputTokensPerSecond: singleStream,
        decodeTokensPerSecond: singleStream,
        ttftP50Ms: ttft,
        ttftP95Ms: ttft * 1.2,
      },
      peak: {
        level: 2,
        load: { kind: "closed", concurrency: 16 },
        aggregateOutputTokensPerSecond: peak,
        perStreamOutputTokensPerSecond: peak / 16,
        window: null,
      },
      kneeConcurrency: 16,
      saturated: true,
      scalingEfficiency: peak / (16 * singleStream),
      errorRate: 0,
      rateLimitRate: 0,
      valid: true,
      capacity: null,
      capacityRequestsPerSecond: null,
      goodputPeak: null,
      capacityBracket: null,
      search: null,
      stop: null,
    },
    levels: [level(1, 1, singleStream), level(2, 16, peak)],
    servedProviders: [],
  };
}

function falseAlarms(cov: number, series: number, runs: number): { alarms: number; perThousand: number } {
  let alarms = 0;
  for (let s = 0; s < series; s++) {
    const random = seededRandom(1000 + s);
    const entries = Array.from({ length: runs }, (_, i) => entry(i, cov, random));
    alarms += detectAlerts(entries).length;
  }
  return { alarms, perThousand: (alarms / (series * runs)) * 1000 };
}

/** Runs from the first run at the new level to the run that opened the alert (0 = the step run itself). */
function delays(step: number, cov: number, trials: number): { found: number[]; missed: number } {
  const before = 60;
  const after = 40;
  const found: number[] = [];
  let missed = 0;
  for (let t = 0; t < trials; t++) {
    const random = seededRandom(5000 + t);
    const entries = Array.from({ length: before + after }, (_, i) => entry(i, cov, random, i < before ? 1 : 1 - step));
    const opened = detectAlerts(entries)
      .filter((a) => a.kind === "regression")
      .map((a) => entries.findIndex((e) => e.startedAt === a.openedAt))
      .filter((i) => i >= before);
    if (opened.length) found.push(Math.min(...opened) - before);
    else missed++;
  }
  return { found, missed };
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

/** Prints the false-alarm and detection-delay tables. */
export function benchRegress(print: (line: string) => void): void {
  const series = 20;
  const runs = 500;
  print(
    `regression detection: false alarms on stable series (${series} series x ${runs} runs per CoV, 3 noisy metrics each)`,
  );
  print("  CoV  alerts  per 1000 runs");
  for (const cov of [0.02, 0.05, 0.1]) {
    const r = falseAlarms(cov, series, runs);
    print(`${pad(`${cov * 100} %`, 5)}  ${pad(r.alarms, 6)}  ${pad(r.perThousand.toFixed(2), 13)}`);
  }
  const trials = 50;
  print(
    `\nregression detection: delay after a step drop of peak aggregate at CoV 5 % (${trials} trials, 60 runs before, 40 after)`,
  );
  print(
    "   (delay in runs after the first run at the new level: 0 = alerted on it, 2 = on the 3rd run at the new level)",
  );
  print(" step  found  median delay  max delay");
  for (const step of [0.1, 0.2, 0.5]) {
    const { found, missed } = delays(step, 0.05, trials);
    const sorted = [...found].sort((a, b) => a - b);
    const median = sorted.length ? sorted[(sorted.length - 1) >> 1] : "-";
    const max = sorted.length ? sorted.at(-1) : "-";
    print(
      `${pad(`${step * 100} %`, 5)}  ${pad(`${found.length}/${found.length + missed}`, 5)}  ${pad(median ?? "-", 12)}  ${pad(max ?? "-", 9)}`,
    );
  }
}
