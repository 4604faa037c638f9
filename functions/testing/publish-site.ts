/**
 * @module The entry `publish-package.test.ts` bundles as SST bundles the publish handler: the handler
 * itself (so the bundle's module graph is the handler's), and a way to run its site build on a folder
 * store, without the AWS services the handler's own stores need.
 */
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { buildSite } from "@kneeboard/site/build";
import { siteRoot } from "../src/lib/deps.ts";

export { handler } from "../src/publish.ts";

/** Builds the site from the store in `dataDir` into `outDir`, finding the sources as the handler does. */
export async function buildFromFolder(dataDir: string, outDir: string) {
  const store = new FolderStore(dataDir);
  return buildSite({
    store,
    index: new StoreRunIndex(store),
    outDir,
    siteRoot: siteRoot(),
    now: "2026-11-02T00:00:00.000Z",
  });
}
