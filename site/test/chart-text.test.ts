/**
 * Chart text as a reader sees it, in real headless Chromium: at 390 px a chart is scaled to the phone's
 * column, and its text must stay readable (10 px or so); at 1366 px a model page's charts sit two to a
 * row; legends show route names whole. Model pages (closed and open loop) and a target page.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type StaticServer, serveStatic } from "../src/serve.ts";
import { launchChromium } from "./browser.ts";
import { FIXTURE_TARGETS, OPEN_LOOP, SHARED_MODEL_KEY } from "./fixture.ts";
import { sharedSite } from "./shared-site.ts";

const CLOSED_MODEL = `models/${SHARED_MODEL_KEY}/`;
const OPEN_MODEL = `models/${OPEN_LOOP.id}/`;
const PAGES = [CLOSED_MODEL, OPEN_MODEL, `targets/${FIXTURE_TARGETS[0].id}/`];

let browser: Browser;
let server: StaticServer;

beforeAll(async () => {
  // The fixture store of three runs a target, built once for the files that share it (shared-site.ts).
  const { outDir } = await sharedSite(inject("sharedSiteDir"));
  server = await serveStatic(outDir);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(path: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const response = await page.goto(new URL(path, server.url).href, { waitUntil: "load" });
  expect(response?.ok(), path).toBe(true);
  return page;
}

/** Each chart's smallest text as drawn: its font size times the SVG's scale (drawn width over its own width). */
function smallestText(page: Page) {
  return page.$$eval(".chart svg", (svgs) =>
    svgs.map((svg) => {
      const scale = svg.getBoundingClientRect().width / Number(svg.getAttribute("width"));
      const sizes = Array.from(svg.querySelectorAll("text"))
        .filter((t) => (t.textContent ?? "").trim() !== "" && t.getAttribute("opacity") !== "0")
        .map((t) => Number.parseFloat(getComputedStyle(t).fontSize) * scale);
      return { chart: svg.closest("figure")?.id ?? "", px: Math.min(...sizes), texts: sizes.length };
    }),
  );
}

describe("chart text", () => {
  it("stays at 10 px or so on a 390 px phone, on model and target pages", async () => {
    for (const path of PAGES) {
      const page = await open(path, 390);
      const charts = await smallestText(page);
      expect(charts.length, path).toBeGreaterThan(0);
      for (const c of charts) {
        expect(c.texts, `${path} ${c.chart}`).toBeGreaterThan(0);
        expect(c.px, `${path} ${c.chart}`).toBeGreaterThanOrEqual(9.5);
      }
      await page.close();
    }
  });

  it("puts a model's two curve charts side by side at 1366 px, each at its own size or less", async () => {
    for (const [path, ids] of [
      [CLOSED_MODEL, ["model-aggregate", "model-perstream"]],
      [OPEN_MODEL, ["model-rate-latency", "model-rate-throughput"]],
    ] as const) {
      const page = await open(path, 1366);
      const boxes = await page.$$eval(ids.map((id) => `#${id} svg`).join(", "), (svgs) =>
        svgs.map((svg) => {
          const r = svg.getBoundingClientRect();
          return { left: r.left, top: r.top, scale: r.width / Number(svg.getAttribute("width")) };
        }),
      );
      expect(boxes, path).toHaveLength(2);
      const [a, b] = boxes as [(typeof boxes)[number], (typeof boxes)[number]];
      expect(b.top, path).toBe(a.top);
      expect(b.left, path).toBeGreaterThan(a.left);
      for (const box of boxes) expect(box.scale, path).toBeGreaterThan(0.9);
      await page.close();
    }
  });

  it("shows every legend name whole (no ellipsis)", async () => {
    for (const path of PAGES) {
      const page = await open(path, 1366);
      const cut = await page.$$eval(".chart svg text", (ts) => ts.filter((t) => t.textContent?.includes("…")).length);
      expect(cut, path).toBe(0);
      await page.close();
    }
  });
});
