/**
 * @module `kneeboard check` on a folder store holding a synthetic history with a regression, and on a
 * --data that is no store (a file, a missing folder, a folder of something else): exit 2, one sentence.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { check } from "@kneeboard/cli/check";
import { HISTORY_NEEDED } from "@kneeboard/cli/commands";
import { AlertsFile } from "@kneeboard/core/alerts";
import { DEFAULT_DETECTOR } from "@kneeboard/core/regress";
import { saveRun } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { normal, seededRandom, syntheticRun } from "@kneeboard/reference";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { kneeboardHere } from "./cli-harness.ts";

function io() {
  const out = new PassThrough();
  const err = new PassThrough();
  let text = "";
  out.on("data", (chunk) => {
    text += chunk;
  });
  err.resume();
  return { io: { out, err }, text: () => text };
}

describe("kneeboard check", () => {
  it("writes alerts.json and the feeds with the regression, and writes identical feeds when run again", async () => {
    // Prepare: 40 hourly runs of a steady target, then its throughput drops 30 %; a second target stays steady.
    const dataDir = mkdtempSync(join(tmpdir(), "kneeboard-check-"));
    const store = new FolderStore(dataDir);
    const index = new StoreRunIndex(store);
    const random = seededRandom(7);
    for (let i = 0; i < 46; i++) {
      const startedAt = new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString();
      for (const targetId of ["slow", "steady"]) {
        const speed = targetId === "slow" && i >= 40 ? 0.7 : 1;
        await saveRun(
          store,
          index,
          syntheticRun({
            targetId,
            runId: `${targetId}${i}`,
            startedAt,
            singleStreamTokensPerSecond: 60 * speed * (1 + 0.02 * normal(random)),
            ttftMs: 300,
            saturationStreams: 8,
            concurrency: [1, 4, 16],
            noise: 0.01,
            random,
          }),
        );
      }
    }

    // Act
    const first = io();
    expect(await check({ dataDir, io: first.io, now: "2025-02-01T00:00:00.000Z" })).toBe(0);

    // Assess
    const file = AlertsFile.parse(JSON.parse(readFileSync(join(dataDir, "alerts.json"), "utf8")));
    const regressions = file.alerts.filter((a) => a.kind === "regression");
    expect(regressions.map((a) => [a.targetId, a.state])).toEqual([["slow", "open"]]);
    expect(regressions[0]?.metrics).toContain("peakAggregateOutputTokensPerSecond");
    const feeds = ["feeds/alerts.xml", "feeds/slow.xml", "feeds/steady.xml"].map((k) =>
      readFileSync(join(dataDir, k), "utf8"),
    );
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(feeds[1] as string);
    expect(parsed.feed["@_xmlns"]).toBe("http://www.w3.org/2005/Atom");
    expect(JSON.stringify(parsed.feed.entry)).toContain(`urn:kneeboard:alert:${regressions[0]?.id}`);
    expect(first.text()).toMatch(/alerts: 1 open/);
    expect(first.text()).toMatch(/since the last check: \d+ new or changed/);

    const second = io();
    await check({ dataDir, io: second.io, now: "2025-02-02T00:00:00.000Z" });
    expect(
      ["feeds/alerts.xml", "feeds/slow.xml", "feeds/steady.xml"].map((k) => readFileSync(join(dataDir, k), "utf8")),
    ).toEqual(feeds);
    expect(second.text()).toMatch(/since the last check: 0 new or changed/);
    expect(second.text()).toContain(`history: ${HISTORY_NEEDED}; all 2 have that many\n`);
  });

  it("says how much history a regression needs, and which (target, scenario)s have less", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "kneeboard-check-short-"));
    const store = new FolderStore(dataDir);
    const index = new StoreRunIndex(store);
    const random = seededRandom(3);
    // One run fewer than a baseline needs for `young`, as many as it needs for `old`.
    const needed = DEFAULT_DETECTOR.minBaselineRuns;
    for (const [targetId, runs] of [
      ["young", needed - 1],
      ["old", needed],
    ] as const)
      for (let i = 0; i < runs; i++)
        await saveRun(
          store,
          index,
          syntheticRun({
            targetId,
            runId: `${targetId}${i}`,
            startedAt: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
            singleStreamTokensPerSecond: 60,
            ttftMs: 300,
            saturationStreams: 8,
            concurrency: [1, 4],
            noise: 0.01,
            random,
          }),
        );
    const result = io();
    expect(await check({ dataDir, io: result.io, now: "2025-02-01T00:00:00.000Z" })).toBe(0);
    expect(result.text()).toContain(
      `history: a (target, scenario) is judged for regressions once it has ${needed} complete runs with a valid level (its baseline)`,
    );
    expect(result.text()).toContain(
      `; 1 of 2 have fewer, not judged yet (young: ${needed - 1}): \`kneeboard run --repeat K\` adds runs\n`,
    );
    // The methodology page and the help say the same, from the same settings.
    const page = readFileSync(new URL("../docs/methodology.md", import.meta.url), "utf8");
    expect(page).toContain(`nothing is judged before a baseline holds ${needed} such runs`);
    expect(page).toContain(`trailing ${DEFAULT_DETECTOR.windowRuns}-run\nbaseline`);
    const help = await kneeboardHere(["check", "--help"]);
    expect(help.out).toContain(`once it has ${needed} complete runs with a valid level`);
    expect(help.out).toContain(`a shift then alerts when ${DEFAULT_DETECTOR.confirmRuns} runs confirm it`);
  });
});

describe("kneeboard check --data that is no store", () => {
  const root = mkdtempSync(join(tmpdir(), "kneeboard-check-nostore-"));
  const file = join(root, "runs.json");
  writeFileSync(file, "{}");
  const other = join(root, "photos");
  mkdirSync(other);
  writeFileSync(join(other, "cat.jpg"), "");

  it.each([
    ["a file", file, `--data ${file} is a file, not a store folder`],
    [
      "a missing folder",
      join(root, "typo/"),
      `--data ${join(root, "typo/")} does not exist: give the store folder \`kneeboard run\` wrote to`,
    ],
    [
      "a folder with neither runs/ nor alerts.json",
      other,
      `--data ${other} is not a store: it holds neither runs/ nor alerts.json (\`kneeboard run\` makes one)`,
    ],
  ])("%s: exit 2, one sentence, no stack trace, nothing written", async (_what, data, sentence) => {
    const result = await kneeboardHere(["check", "--data", data]);
    expect(result).toEqual({ code: 2, out: `${sentence}\n` });
    expect(readdirSync(root).sort()).toEqual(["photos", "runs.json"]);
    expect(readdirSync(other)).toEqual(["cat.jpg"]);
    expect(readFileSync(file, "utf8")).toBe("{}");
    expect(existsSync(join(root, "typo"))).toBe(false);
  });
});
