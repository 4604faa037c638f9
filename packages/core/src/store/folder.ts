/** @module The store port on a local folder (`./data` by default), with atomic writes. */
import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { StoreError } from "../errors/index.ts";
import { checkKey, type Store } from "./index.ts";

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

  localPath(key: string): string {
    checkKey(key);
    return join(this.root, key);
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
      .filter((e) => e.isFile() && !e.name.endsWith(".tmp"))
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join("/"))
      .filter((k) => k.startsWith(prefix))
      .sort();
  }
}
