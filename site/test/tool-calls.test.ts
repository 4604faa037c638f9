import { dirname } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { toolCallsCell, verdictWords } from "../src/lib/tool-calls.ts";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { CHAT_OPEN, SHARED_MODEL_KEY, TOOL_ROUTES } from "./fixture.ts";
import { publishedIndex, publishedRunsCsv } from "./published.ts";
import { sharedSite } from "./shared-site.ts";

type Share = { successes: number; trials: number; share: number | null; low: number | null; high: number | null };
interface Published {
  id: string;
  scenario: string;
  toolCalls: {
    support: string;
    verdict: string | null;
    schemaValid: Share;
    rightTool: Share;
    shares: Record<string, Share>;
    triggerF1: number | null;
    exactCallF1: number | null;
    reason: string | null;
  } | null;
}

let browser: Browser;
let server: StaticServer;
let base: string;
let outDir: string;
let published: Map<string, Published>;

const percent = (s: Share) => `${Math.round((s.share as number) * 100)} %`;

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(new URL(path, base).href, { waitUntil: "load" });
  return page;
}

/** The tool-calls cell of a target's row in a ranking table (text, tooltip), and the badge beside its name. */
async function cellOf(page: Page, table: string, id: string) {
  return page.$eval(`#${table} tr[data-target="${id}"]`, (tr) => {
    const td = tr.querySelector("td.tool-calls");
    return {
      text: td?.textContent?.trim() ?? "",
      title: td?.getAttribute("title") ?? "",
      badge: tr.querySelector("td.name .badge.tool-calls")?.textContent?.trim() ?? null,
      value: td?.getAttribute("data-v") ?? null,
    };
  });
}

beforeAll(async () => {
  ({ outDir } = await sharedSite(inject("sharedSiteDir")));
  server = await serveStatic(dirname(dirname(outDir)));
  base = `${server.url}prefix/dist/`;
  const index = publishedIndex(outDir) as { targets: Published[] };
  published = new Map(index.targets.map((t) => [t.id, t]));
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("tool calls on the site", () => {
  it("publishes each route's tool calls in index.json: support, verdict, the two shares, both F1s and reason", () => {
    expect(published.get("fast-small")?.toolCalls).toMatchObject({
      support: "supported",
      verdict: "same",
      triggerF1: null,
      exactCallF1: null,
    });
    expect(published.get("slow-large")?.toolCalls).toMatchObject({
      support: "supported",
      verdict: "same",
      triggerF1: 1,
      exactCallF1: 1,
    });
    const worse = published.get(CHAT_OPEN.id)?.toolCalls;
    expect(worse).toMatchObject({ support: "supported", verdict: "worse" });
    expect(worse?.reason).toMatch(/schema-valid arguments \d+\/15 prompts against 15\/15/);
    // The share is the run's own count, with its Wilson interval around it.
    const valid = worse?.schemaValid as Share;
    expect(valid.trials).toBe(60);
    expect(valid.share).toBeCloseTo(valid.successes / 60, 12);
    expect(valid.low).toBeLessThan(valid.share as number);
    expect(valid.high).toBeGreaterThan(valid.share as number);
    expect(worse?.shares.argumentsValid).toEqual(valid);
    expect(Object.keys(worse?.shares ?? {})).toHaveLength(9);
    expect(published.get("hostile")?.toolCalls).toMatchObject({
      support: "no-tool-support",
      verdict: "no-tool-support",
    });
    expect(published.get("partial-one")?.toolCalls).toBeNull();
  });

  it("writes the run's tool calls on each of its rows of runs.csv, empty where it had none", () => {
    const [header, ...rows] = publishedRunsCsv(outDir).trim().split("\n");
    const cols = (header ?? "").split(",");
    for (const c of [
      "tool_calls_support",
      "tool_calls_schema_valid_share",
      "tool_calls_right_tool_share",
      "tool_calls_verdict",
    ])
      expect(cols).toContain(c);
    const cell = (r: string, name: string) => r.split(",")[cols.indexOf(name)];
    const of = (id: string, scenario = "chat") =>
      (rows as string[]).filter((r) => cell(r, "targetId") === id && cell(r, "scenario") === scenario);
    expect(new Set(of("hostile").map((r) => cell(r, "tool_calls_support")))).toEqual(new Set(["no-tool-support"]));
    expect(new Set(of("hostile").map((r) => cell(r, "tool_calls_schema_valid_share")))).toEqual(new Set([""]));
    // The worse route's latest run carries its verdict and its share (3 decimals, as every CSV number).
    const latestRun = of(CHAT_OPEN.id).at(-1) as string;
    const valid = published.get(CHAT_OPEN.id)?.toolCalls?.schemaValid as Share;
    expect(cell(latestRun, "tool_calls_verdict")).toBe("worse");
    expect(cell(latestRun, "tool_calls_schema_valid_share")).toBe(String(Number((valid.share as number).toFixed(3))));
    // A rag run and a target without tool calls: four empty cells.
    for (const r of [...of("fast-small", "rag"), ...of("partial-one")])
      expect(
        [
          "tool_calls_support",
          "tool_calls_schema_valid_share",
          "tool_calls_right_tool_share",
          "tool_calls_verdict",
        ].map((c) => cell(r, c)),
      ).toEqual(["", "", "", ""]);
  });

  it("gives every ranking a tool-calls cell: the schema-valid share, its interval on hover, a dash when not measured, and a badge by the name when worse or refused", async () => {
    const page = await open("./");
    const headers = await page.$$eval("#leaderboard thead th", (ths) => ths.map((th) => th.textContent?.trim() ?? ""));
    expect(headers.findIndex((h) => h.startsWith("tool calls"))).toBe(headers.length - 2); // before the trend
    const reference = await cellOf(page, "leaderboard", "fast-small");
    expect(reference).toMatchObject({ text: "100 %", badge: null, value: "1" });
    expect(reference.title).toContain("Wilson 95 %: 94-100 %, 60 of 60");
    expect(reference.title).toContain("reference route");
    expect((await cellOf(page, "leaderboard", "slow-large")).badge).toBeNull();
    const refused = await cellOf(page, "leaderboard", "hostile");
    expect(refused).toMatchObject({ text: "—", badge: "no tool support", value: "" });
    expect(refused.title).toContain("HTTP 400");
    expect(await cellOf(page, "leaderboard", "partial-one")).toMatchObject({ text: "—", badge: null });
    // The open loop in chat is ranked apart, and its table has the cell too.
    const valid = published.get(CHAT_OPEN.id)?.toolCalls?.schemaValid as Share;
    const worse = await cellOf(page, "rate-leaderboard", CHAT_OPEN.id);
    expect(worse.text).toBe(percent(valid));
    expect(worse.badge).toBe("tool calls: worse");
    expect(worse.title).toContain(`${valid.successes} of 60`);
    await page.close();
  });

  it("tables every measure per route on the model page, the reference first and marked, with both F1s and the verdict's reason", async () => {
    const page = await open(`models/${SHARED_MODEL_KEY}/`);
    const rows = await page.$$eval("#tool-calls tbody tr", (trs) =>
      trs.map((tr) => ({
        id: (tr as HTMLElement).dataset.target,
        reference: (tr as HTMLElement).dataset.reference ?? null,
        cells: Array.from(tr.querySelectorAll("td")).map((td) => td.textContent?.trim() ?? ""),
      })),
    );
    // hostile serves a model of its own; the reference's row first, then the others in the page's order.
    const ids = Object.keys(TOOL_ROUTES).filter((id) => id !== "hostile");
    expect(rows[0]).toMatchObject({ id: "fast-small", reference: "true" });
    expect(rows.map((r) => r.id).sort()).toEqual(ids.sort());
    expect(rows.filter((r) => r.reference !== null)).toHaveLength(1);
    const row = (id: string) => rows.find((r) => r.id === id);
    expect(row("fast-small")?.cells.slice(1, 4)).toEqual(["reference", "—", "—"]);
    expect(row("slow-large")?.cells.slice(1, 4)).toEqual(["no drop detected", "1.00", "1.00"]);
    expect(row(CHAT_OPEN.id)?.cells[1]).toBe("worse");
    const headers = await page.$$eval("#tool-calls thead th", (ths) => ths.map((th) => th.textContent?.trim() ?? ""));
    expect(headers).toHaveLength(14);
    // Each measure: the share, then its interval and count under it.
    const valid = published.get(CHAT_OPEN.id)?.toolCalls?.schemaValid as Share;
    const at = headers.indexOf("schema-valid");
    expect(row(CHAT_OPEN.id)?.cells[at]).toBe(
      `${percent(valid)}${Math.round((valid.low as number) * 100)}-${Math.round((valid.high as number) * 100)} %, ${valid.successes} of 60`,
    );
    expect(row(CHAT_OPEN.id)?.cells.at(-1)).toMatch(
      /^lower than the reference's: every measure \d+\/24 prompts against 24\/24 .*schema-valid arguments \d+\/15 prompts/,
    );
    // Simulated routes say so, in the row and in the caption.
    expect(await page.$$eval("#tool-calls .badge.sim", (b) => b.length)).toBe(3);
    expect(await page.textContent("#tool-calls caption")).toContain("not how any provider behaves");
    await page.close();
  });

  it("says on the model page of a route that refused tools that it has no tool support", async () => {
    const page = await open("models/hostile-model/");
    const row = await page.$eval("#tool-calls tbody tr", (tr) => ({
      verdict: (tr as HTMLElement).dataset.verdict,
      cells: Array.from(tr.querySelectorAll("td")).map((td) => td.textContent?.trim() ?? ""),
    }));
    expect(row.verdict).toBe("no-tool-support");
    expect(row.cells[1]).toBe("no tool support");
    expect(row.cells.at(-1)).toContain("HTTP 400");
    await page.close();
  });

  it("explains tool calls and their alert on the methodology page", async () => {
    const page = await open("methodology/");
    const headings = await page.$$eval("h2, h3", (hs) => hs.map((h) => h.textContent?.trim() ?? ""));
    expect(headings).toContain("Tool calls");
    expect(await page.textContent("main")).toContain("tool_calls_regression");
    await page.close();
  });
});

describe("tool-call words", () => {
  const verdict = {
    reference: "ref",
    verdict: "worse" as const,
    cause: "stopped_calling" as const,
    reason: "lower than the reference's: call when needed (trigger) 0/75 prompts against 75/75",
    lower: ["callWhenNeeded" as const],
    measures: [],
    triggerF1: 0,
    exactCallF1: 0,
    runId: "r",
    referenceRunId: "s",
  };
  it("says a route that stopped calling tools did so, in the badge and on the model page", () => {
    const none = { successes: 0, trials: 75, share: 0, low: 0, high: 0.05 };
    const shares = Object.fromEntries(
      [
        "callWhenNeeded",
        "noCallWhenNone",
        "rightTool",
        "argumentsParse",
        "argumentsValid",
        "argumentValues",
        "parallelBoth",
        "finishReason",
        "structuredOutput",
      ].map((m) => [m, none]),
    );
    const cell = toolCallsCell({ runId: "r", suite: "tools-v2", support: "supported", shares, verdict } as never);
    expect(cell).toMatchObject({ text: "0 %", badge: "tool calls: stopped calling" });
    expect(verdictWords(verdict)).toBe("worse: stopped calling tools");
    expect(verdictWords({ ...verdict, cause: "lower" })).toBe("worse");
    expect(verdictWords({ ...verdict, verdict: "too-few-samples", cause: "unanswered" })).toBe("not comparable");
  });
});
