/** @module The folder store on a real directory: keys, atomic replace, listing, bad keys, the lock. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
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

/** The id of a process that has ended (a run killed while it held a lock). */
function goneProcessId(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("FolderStore.exclusive", () => {
  it("takes over a lock left by a process that is gone, and removes it after", async () => {
    const store = new FolderStore(mkdtempSync(join(tmpdir(), "kneeboard-lock-")));
    await mkdir(join(store.root, "index/runs"), { recursive: true });
    writeFileSync(join(store.root, "index/runs/t.json.lock"), String(goneProcessId()));
    expect(await store.exclusive("index/runs/t.json", async () => "ran")).toBe("ran");
    expect(await store.list("index/")).toEqual([]);
  });

  it("runs one holder at a time", async () => {
    const store = new FolderStore(mkdtempSync(join(tmpdir(), "kneeboard-lock-")));
    let inside = 0;
    let most = 0;
    const hold = () =>
      store.exclusive("k.json", async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setImmediate(r));
        inside--;
      });
    await Promise.all(Array.from({ length: 8 }, hold));
    expect(most).toBe(1);
  });
});
