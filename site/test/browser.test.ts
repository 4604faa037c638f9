/** @module The browser tests' Chromium: found where named, and a missing one fails `npm test` with one line. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { findChromium, NO_CHROMIUM } from "./browser.ts";

const exec = promisify(execFile);
const SCRIPT = new URL("./browser.ts", import.meta.url).pathname;

describe("the test browser", () => {
  it("is the one KNEEBOARD_CHROMIUM names, when it is executable", () => {
    expect(findChromium({ KNEEBOARD_CHROMIUM: process.execPath })).toBe(process.execPath);
    expect(findChromium({ KNEEBOARD_CHROMIUM: "/nonexistent/chrome" })).toBeUndefined();
  });

  it("missing, stops the pretest step with exit 1 and one line saying how to get one (nothing installed)", async () => {
    const run = exec("npx", ["tsx", SCRIPT], { env: { ...process.env, KNEEBOARD_CHROMIUM: "/nonexistent/chrome" } });
    const failure = (await run.then(
      () => null,
      (error) => error,
    )) as { code: number; stderr: string } | null;
    expect(failure?.code).toBe(1);
    expect(failure?.stderr.trim()).toBe(NO_CHROMIUM);
  });
});
