/**
 * @module The site code's version: one hash of its page sources, the methodology and any other files
 * named (the publish bundle), so publish can tell pages built by other code and rebuild them all.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

/** SHA-256 (hex) over every file under `paths` (folders walked), each by its path and bytes, in path order; a missing path counts as absent. */
export async function codeVersion(paths: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const path of [...paths].sort()) {
    const info = await stat(path).catch(() => null);
    if (info === null) continue;
    const files = info.isDirectory()
      ? (await readdir(path, { recursive: true, withFileTypes: true }))
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath, e.name))
          .sort()
      : [path];
    for (const file of files) hash.update(`${file.slice(path.length)}\0`).update(await readFile(file));
  }
  return hash.digest("hex");
}
