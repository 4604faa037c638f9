/** @module The alert ledger kept in a store (the folder store locally), at `state/delivered.json`. */
import { z } from "zod";
import type { AlertState } from "../alerts/index.ts";
import { StoreError } from "../errors/index.ts";
import type { Store } from "../store/index.ts";
import type { AlertLedger } from "./index.ts";

/** `delivered[alertId][channel][state]` = when it was claimed (ISO 8601). */
export const DeliveredFile = z.object({
  schemaVersion: z.literal(1),
  delivered: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.string()))),
});
export type DeliveredFile = z.infer<typeof DeliveredFile>;

export const DELIVERED_KEY = "state/delivered.json";

/**
 * A ledger in the store. Claims within one process are serialized, so concurrent claims are
 * exactly-once; the store has no conditional write, so two processes claiming at once are not
 * (use a DynamoDB ledger for that).
 */
export class StoreAlertLedger implements AlertLedger {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly options: { key?: string; now?: () => Date } = {},
  ) {}

  private get key(): string {
    return this.options.key ?? DELIVERED_KEY;
  }

  claim(alertId: string, state: AlertState, channel: string): Promise<boolean> {
    return this.serialized(async () => {
      const file = await this.read();
      const channels = file.delivered[alertId] ?? {};
      const states = channels[channel] ?? {};
      if (states[state] !== undefined) return false;
      channels[channel] = states;
      file.delivered[alertId] = channels;
      states[state] = (this.options.now?.() ?? new Date()).toISOString();
      await this.write(file);
      return true;
    });
  }

  release(alertId: string, state: AlertState, channel: string): Promise<void> {
    return this.serialized(async () => {
      const file = await this.read();
      const states = file.delivered[alertId]?.[channel];
      if (states?.[state] === undefined) return;
      delete states[state];
      await this.write(file);
    });
  }

  /** Runs one read-modify-write at a time; a failed one does not block the next. */
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  // Read on every claim rather than cache: another instance (or a later run) may have written.
  private async read(): Promise<DeliveredFile> {
    const body = await this.store.get(this.key);
    if (body === null) return { schemaVersion: 1, delivered: {} };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (cause) {
      throw new StoreError(`${this.key} is not JSON`, { cause });
    }
    const parsed = DeliveredFile.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new StoreError(`${this.key} is not a valid delivered file: ${first?.path.join(".")}: ${first?.message}`);
    }
    return parsed.data;
  }

  private async write(file: DeliveredFile): Promise<void> {
    await this.store.put(this.key, `${JSON.stringify(file, null, 1)}\n`, { contentType: "application/json" });
  }
}
