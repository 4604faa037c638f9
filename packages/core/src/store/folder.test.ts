/** @module The folder store on a real directory: keys, atomic replace, listing, bad keys. */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/index.ts";
import { FolderStore } from "./folder.ts";

describe("FolderStore", () => {
  it("puts, gets, replaces and lists keys, leaving no temporary file", async () => {
    const root = mkdtempSync(join(tmpdir(), "kneeboard-store-"));
    const store = new FolderStore(root);
    await store.put("runs/a/1.json", "one");
    await store.put("runs/a/1.json", "two");
    await store.put("runs/b/2.json", "three");
    await store.put("alerts.json", "[]");
    expect(await store.get("runs/a/1.json")).toBe("two");
    expect(await store.get("runs/none.json")).toBeNull();
    expect(await store.list("runs/")).toEqual(["runs/a/1.json", "runs/b/2.json"]);
    expect(readdirSync(join(root, "runs/a"))).toEqual(["1.json"]);
  });

  it("rejects keys that would leave the root", async () => {
    const store = new FolderStore(mkdtempSync(join(tmpdir(), "kneeboard-store-")));
    await expect(store.put("../escape.json", "x")).rejects.toBeInstanceOf(StoreError);
    await expect(store.get("/etc/passwd")).rejects.toBeInstanceOf(StoreError);
    expect(() => store.localPath("../escape.json")).toThrow(StoreError);
  });

  it("names the local file that holds a key, for callers that link it instead of reading it", async () => {
    const store = new FolderStore(mkdtempSync(join(tmpdir(), "kneeboard-store-")));
    await store.put("runs/a/1.json", "one");
    expect(readFileSync(store.localPath("runs/a/1.json"), "utf8")).toBe("one");
  });

  it("lists nothing for a missing root", async () => {
    expect(await new FolderStore(join(tmpdir(), "kneeboard-missing-xyz")).list("runs/")).toEqual([]);
  });
});
