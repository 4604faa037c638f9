/** @module The store port on a local folder (`./data` by default), with atomic writes. */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { StoreError } from "../errors/index.ts";
import { checkKey, type Store } from "./index.ts";

/** How long `exclusive` waits for a lock held by a live process before it gives up, ms. */
export const LOCK_WAIT_LIMIT_MS = 30_000;
/** Between two tries at a held lock, ms. */
const LOCK_RETRY_MS = 5;

/** Whether a process with this id is running (a lock whose holder is gone, e.g. SIGKILLed, is stale). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A store in a folder: each key is a file under `root`. */
export class FolderStore implements Store {
  constructor(readonly root: string) {}

  async put(key: string, body: string): Promise<void> {
    checkKey(key);
    const path = join(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    // Write beside the target and rename over it: rename is atomic, so no reader sees half a file.
    const temp = `${path}.${randomUUID()}.tmp`;
    await writeFile(temp, body);
    await rename(temp, path);
  }

  async get(key: string): Promise<string | null> {
    checkKey(key);
    try {
      return await readFile(join(this.root, key), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new StoreError(`cannot read ${key}`, { cause: error });
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) checkKey(key);
    for (const key of keys) await rm(join(this.root, key), { force: true });
  }

  localPath(key: string): string {
    checkKey(key);
    return join(this.root, key);
  }

  /**
   * Holds `<key>.lock` (created exclusively, holding this process's id) while fn runs. A lock whose
   * process is gone is taken over; one held by a live process longer than `LOCK_WAIT_LIMIT_MS` is an error.
   */
  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    checkKey(key);
    const lock = `${join(this.root, key)}.lock`;
    await mkdir(dirname(lock), { recursive: true });
    for (let waitedMs = 0; ; waitedMs += LOCK_RETRY_MS) {
      try {
        const handle = await open(lock, "wx");
        await handle.writeFile(String(process.pid));
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = Number(await readFile(lock, "utf8").catch(() => ""));
      // An empty file is a lock being written this instant: wait for it like a live one.
      if (holder > 0 && !alive(holder)) await rm(lock, { force: true });
      else if (waitedMs >= LOCK_WAIT_LIMIT_MS) throw new StoreError(`${key} stayed locked by process ${holder}`);
      else await delay(LOCK_RETRY_MS);
    }
    try {
      return await fn();
    } finally {
      await rm(lock, { force: true });
    }
  }

  async list(prefix: string): Promise<string[]> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return entries
      .filter((e) => e.isFile() && !e.name.endsWith(".tmp") && !e.name.endsWith(".lock"))
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join("/"))
      .filter((k) => k.startsWith(prefix))
      .sort();
  }
}
