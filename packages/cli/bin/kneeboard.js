#!/usr/bin/env node
/**
 * @module The `kneeboard` command in the repository: the compiled bundle (`npm run build -w
 * packages/cli`, in dist/) when it is newer than every source file it was built from, else the
 * TypeScript sources through tsx, so an edit never runs stale code and no build is needed.
 */
import { readFileSync, statSync } from "node:fs";

const DIST = new URL("../dist/kneeboard.js", import.meta.url);

/** Whether dist/kneeboard.js exists and no source it lists (dist/inputs.json) changed after it was written. */
function built() {
  try {
    const builtMs = statSync(DIST).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL("inputs.json", DIST), "utf8"));
    return inputs.every((path) => statSync(new URL(path, DIST)).mtimeMs <= builtMs);
  } catch {
    return false;
  }
}

if (built()) await import(DIST.href);
else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("./entry.ts");
}
