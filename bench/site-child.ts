/** Builds the site from argv[2] into argv[3] at time argv[4] (as `kneeboard site` does) and prints its time and peak RSS as JSON. */
import { Writable } from "node:stream";
import { site } from "@kneeboard/cli/site";

const [dataDir, outDir, now] = process.argv.slice(2) as [string, string, string | undefined];
const quiet = new Writable({ write: (_c, _e, done) => done() });
const began = performance.now();
await site({ dataDir, outDir, now, io: { out: quiet, err: process.stderr } });
const seconds = (performance.now() - began) / 1000;
console.log(JSON.stringify({ seconds, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
