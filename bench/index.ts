/**
 * @module `npm run bench`: performance figures, printed, never asserted (the client's cost and accuracy beside a minimal client, the open loop's schedule lag, the demo, regression detection, the site build). One kneeboard
 * process (this one) drives a reference target in another process; then the `npm start` sweep is timed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { benchAws } from "./aws.ts";
import { benchClient, benchClientCommand } from "./client.ts";
import { benchOpenLoop } from "./open-loop.ts";
import { benchRegress } from "./regress.ts";
import { benchSameModel } from "./same-model.ts";
import { benchCatalogue, benchSite } from "./site.ts";

async function demoRunTime(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "kneeboard-bench-"));
  const bin = new URL("../packages/cli/bin/kneeboard.js", import.meta.url).pathname;
  const began = performance.now();
  await promisify(execFile)(process.execPath, [bin, "demo", "--data", data, "--out", join(data, "site")], {
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(
    `\nnpm start (kneeboard demo: the reference targets swept, the regression check, the site): ${((performance.now() - began) / 1000).toFixed(1)} s`,
  );
}

/**
 * `npm run bench -- client` (or `open-loop`, `demo`, `regress`, `site`, `aws`, `same-model`, several at
 * once) runs only those parts; none named, all. `catalogue` runs only the site part's 1,000-route case (`CATALOGUE_TARGETS` sets another count). `command` (only when named) runs the client part's
 * figures for the command as a user runs it, alone.
 */
const parts = process.argv.slice(2);
const runs = (part: string) => parts.length === 0 || parts.includes(part);

if (runs("client")) await benchClient(console.log);
if (parts.includes("command")) await benchClientCommand(console.log);
if (runs("open-loop")) await benchOpenLoop(console.log);
if (runs("demo")) await demoRunTime();
if (runs("regress")) benchRegress(console.log);
if (runs("site")) await benchSite(console.log);
// The catalogue (1,000 routes, many minutes) with `site`, or alone as `catalogue`.
if (runs("site") || parts.includes("catalogue"))
  await benchCatalogue(console.log, Number(process.env.CATALOGUE_TARGETS) || undefined);
if (runs("aws")) await benchAws(console.log);
if (runs("same-model")) await benchSameModel(console.log);
