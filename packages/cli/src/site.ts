/** @module `kneeboard site` and `kneeboard preview`: build the static site from the folder store, serve it on localhost. */
import { resolve } from "node:path";
import type { StandingConfig } from "@kneeboard/core/config";
import { syncIndex } from "@kneeboard/core/run-index";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { buildSite } from "@kneeboard/site/build";
import { serveStatic } from "@kneeboard/site/serve";

interface IO {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/** Builds the site from dataDir into outDir; malformed documents become warnings, not failures. */
export async function site(options: {
  dataDir: string;
  outDir: string;
  io: IO;
  subscribeUrl?: string;
  /** The build's time, where the standing window ends (default: now). */
  now?: string;
  /** Which runs the standing is taken over (default 72 hours, at most 24 runs). */
  standing?: StandingConfig;
}): Promise<number> {
  const began = performance.now();
  const store = new FolderStore(options.dataDir);
  const index = new StoreRunIndex(store);
  const warn = (message: string) => options.io.err.write(`warning: ${message}\n`);
  // Runs copied into the store by hand (or whose indexing was cut off) join the index first.
  await syncIndex(store, index, warn);
  const result = await buildSite({
    store,
    index,
    outDir: options.outDir,
    warn,
    subscribeUrl: options.subscribeUrl,
    now: options.now,
    standing: options.standing,
  });
  options.io.out.write(
    `site: ${result.targets} targets, ${result.runDocuments} runs, built in ${((performance.now() - began) / 1000).toFixed(1)} s into ${result.outDir}\n` +
      `open it with \`npm run preview\` (serves ${result.outDir} on http://127.0.0.1:4321/)\n`,
  );
  return 0;
}

/** Serves a built site on 127.0.0.1 until the process is stopped. */
export async function preview(options: { outDir: string; port: number; io: IO }): Promise<number> {
  const server = await serveStatic(resolve(options.outDir), { port: options.port });
  options.io.out.write(`serving ${resolve(options.outDir)} at ${server.url} (Ctrl-C stops)\n`);
  await new Promise<void>((done) => {
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  await server.close();
  return 0;
}
