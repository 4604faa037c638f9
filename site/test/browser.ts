/**
 * @module The Chromium the browser tests drive: found on this machine, installed from Debian's packages by
 * `npm test` when missing and the user may, or a one-line error saying how to get one (never a skip).
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Flags for a root user on a machine whose network is closed (background fetches would be refused). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Where a browser is looked for, first match wins: `KNEEBOARD_CHROMIUM`, then Debian's and other usual paths. */
export function chromiumCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const paths = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  return env.KNEEBOARD_CHROMIUM ? [env.KNEEBOARD_CHROMIUM] : paths;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable candidate, or undefined. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return chromiumCandidates(env).find(isExecutable);
}

/** The one line a user reads when there is no browser. */
export const NO_CHROMIUM =
  "no Chromium for the browser tests: run `apt-get install -y chromium` as root (or `npm test` as root, which does it), or set KNEEBOARD_CHROMIUM to a Chrome or Chromium executable";

/** Launches the test browser, or throws NO_CHROMIUM. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(NO_CHROMIUM);
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS });
}

/**
 * Makes sure a browser is there before the tests run (the `pretest` step of `npm test`): where none is
 * found and this process is root on a machine with apt-get, installs Debian's `chromium`; otherwise
 * prints NO_CHROMIUM and exits 1, so a missing browser never reads as a pass.
 */
function ensureChromium(): void {
  if (findChromium()) return;
  const mayInstall = process.getuid?.() === 0 && isExecutable("/usr/bin/apt-get") && !process.env.KNEEBOARD_CHROMIUM;
  if (mayInstall) {
    console.log("Chromium is missing: installing Debian's chromium for the browser tests (apt-get, once)");
    const apt = (args: string[]) =>
      execFileSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    apt(["update", "-qq"]);
    apt(["install", "-y", "-qq", "chromium"]);
  }
  if (!findChromium()) {
    console.error(NO_CHROMIUM);
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureChromium();
