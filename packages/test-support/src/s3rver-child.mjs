/**
 * @module Runs s3rver in its own process, started by `s3rver.ts` with `--openssl-legacy-provider`
 * (s3rver's paginated listing fails without it, and a vitest worker cannot set that flag itself).
 * Usage: node --openssl-legacy-provider s3rver-child.mjs <directory>. Prints `{"port":N}` once listening;
 * exits when its stdin closes, so a parent that dies never leaves it running.
 */
import S3rver from "s3rver";

const directory = process.argv[2];
if (!directory) {
  process.stderr.write("usage: s3rver-child.mjs <directory>\n");
  process.exit(2);
}
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
