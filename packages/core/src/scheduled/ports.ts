/**
 * @module The ports of the scheduled use cases beside the queue: the site bucket, the CDN and the
 * pending documents of continued sweeps, with in-memory implementations for tests and local use.
 */
import { StoreError } from "../errors/index.ts";
import { RunDocument } from "../run/index.ts";
import type { MessageQueue, OutgoingMessage } from "./messages.ts";

/** The bucket the static site is served from. */
export interface SiteBucket {
  /** Every key that starts with prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Writes one file with the content type it is served with. */
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** Removes keys; a key that is not there is no error. */
  delete(keys: string[]): Promise<void>;
  /** Copies one file to another key inside the bucket, content type included. */
  copy(fromKey: string, toKey: string): Promise<void>;
}

/** The CDN in front of the site bucket. */
export interface Cdn {
  /** Drops cached copies of paths (`/*` for all); `reference` makes a retried call idempotent. */
  invalidate(paths: string[], reference: string): Promise<void>;
}

/** The finished levels of runs that continue in a later invocation; private, never published. */
export interface PendingRuns {
  /** Saves the run so far (replacing what was saved before). */
  save(doc: RunDocument): Promise<void>;
  /** The saved run, validated, or null when none is saved. */
  load(runId: string): Promise<RunDocument | null>;
  /** Forgets the run (after its document is stored); a no-op when none is saved. */
  clear(runId: string): Promise<void>;
}

const RunIdSegment = /^[A-Za-z0-9._-]+$/;

/** The key of a pending run, shared by every implementation: `pending/<runId>.json`. */
export function pendingKey(runId: string): string {
  if (!RunIdSegment.test(runId)) throw new StoreError(`invalid run id: ${JSON.stringify(runId)}`);
  return `pending/${runId}.json`;
}

/** Validates a pending document read back; a bad one names its key. */
export function parsePending(key: string, body: string): RunDocument {
  try {
    return RunDocument.parse(JSON.parse(body));
  } catch (cause) {
    throw new StoreError(`${key} is not a valid pending run document`, { cause });
  }
}

/** Site files in memory: what was put, with its content type. */
export class MemorySiteBucket implements SiteBucket {
  readonly files = new Map<string, { body: Uint8Array; contentType: string }>();
  /** Every put in order, so tests can count uploads. */
  readonly puts: string[] = [];

  async list(prefix: string): Promise<string[]> {
    return [...this.files.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    this.files.set(key, { body, contentType });
    this.puts.push(key);
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) this.files.delete(key);
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const file = this.files.get(fromKey);
    if (!file) throw new StoreError(`cannot copy ${fromKey}: no such file`);
    this.files.set(toKey, file);
    this.puts.push(toKey);
  }
}

/** Records invalidations. */
export class MemoryCdn implements Cdn {
  readonly invalidations: { paths: string[]; reference: string }[] = [];

  async invalidate(paths: string[], reference: string): Promise<void> {
    this.invalidations.push({ paths: [...paths], reference });
  }
}

/** Pending runs in memory, kept as JSON text so a load is a copy, as from a bucket. */
export class MemoryPendingRuns implements PendingRuns {
  readonly bodies = new Map<string, string>();

  async save(doc: RunDocument): Promise<void> {
    this.bodies.set(pendingKey(doc.runId), JSON.stringify(doc));
  }

  async load(runId: string): Promise<RunDocument | null> {
    const key = pendingKey(runId);
    const body = this.bodies.get(key);
    return body === undefined ? null : parsePending(key, body);
  }

  async clear(runId: string): Promise<void> {
    this.bodies.delete(pendingKey(runId));
  }
}

/** A queue in memory: what was sent, in order; `take()` receives and removes it, as a consumer would. */
export class MemoryQueue implements MessageQueue {
  readonly sent: OutgoingMessage[] = [];

  async send(...messages: OutgoingMessage[]): Promise<void> {
    this.sent.push(...messages);
  }

  /** Removes and returns every message sent so far. */
  take(): OutgoingMessage[] {
    return this.sent.splice(0);
  }
}
