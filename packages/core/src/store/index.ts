/**
 * @module The store port: a key-value store of text documents at the keys of docs/run-document.md.
 * The folder store (`./data`) and the AWS store implement it; everything above talks to this.
 */
import { StoreError } from "../errors/index.ts";
import { RunDocument, runKey } from "../run/index.ts";

/**
 * Keys are relative paths of `/`-separated safe segments; nothing may escape a folder store's root.
 * Every adapter applies the same rule, so a key that works locally works on S3 and back.
 */
export function checkKey(key: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(key) || key.split("/").some((s) => s === "." || s === "..")) {
    throw new StoreError(`invalid store key: ${JSON.stringify(key)}`);
  }
}

/** A store of documents by key (`runs/<targetId>/<stamp>-<runId>.json`, `alerts.json`, ...). */
export interface Store {
  /** Writes the whole body at once; a reader sees the old body or the new one, never a part. */
  put(key: string, body: string, options?: { contentType?: string }): Promise<void>;
  /** The body at key, or null when there is none. */
  get(key: string): Promise<string | null>;
  /** Every key that starts with prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Removes keys (what a finished job kept only for itself); a key that is not there is no error. */
  delete(keys: string[]): Promise<void>;
  /**
   * The local file holding `key`, for a store that keeps keys as files (the folder store), so a
   * caller may link or copy the file instead of reading it; absent for remote stores.
   */
  localPath?(key: string): string;
  /**
   * Runs `fn` while no other process holds `key`'s lock, for a read-modify-write of that key (the run
   * index) by processes sharing one store; absent where writers never share a key this way.
   */
  exclusive?<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** Stores a run document at its key and returns the key. */
export async function putRun(store: Store, doc: RunDocument): Promise<string> {
  const key = runKey(doc);
  await store.put(key, `${JSON.stringify(doc, null, 1)}\n`, { contentType: "application/json" });
  return key;
}

/** Keys of the stored run documents, oldest first per target (keys sort by start time). */
export async function listRunKeys(store: Store, targetId?: string): Promise<string[]> {
  const keys = await store.list(targetId ? `runs/${targetId}/` : "runs/");
  return keys.filter((k) => k.endsWith(".json"));
}

/** Reads and validates one run document; throws StoreError naming the key when it is malformed. */
export async function readRun(store: Store, key: string): Promise<RunDocument> {
  const body = await store.get(key);
  if (body === null) throw new StoreError(`no run document at ${key}`);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new StoreError(`${key} is not JSON`, { cause });
  }
  const parsed = RunDocument.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new StoreError(`${key} is not a valid run document: ${first?.path.join(".")}: ${first?.message}`);
  }
  return parsed.data;
}
