/**
 * @module Contract suites for the scheduled path's ports (queue, site bucket, pending runs, rebuild ledger): one set of
 * behaviours the in-memory and the AWS implementations must both show. Imported by tests only
 * (src/scheduled/contract.test.ts and src/aws/scheduled.contract.test.ts run them).
 */
import { describe, expect, it } from "vitest";
import { StoreError } from "../src/errors/index.ts";
import type { RunDocument } from "../src/run/index.ts";
import type { MessageQueue, OutgoingMessage } from "../src/scheduled/messages.ts";
import type { PendingRuns, SiteBucket } from "../src/scheduled/ports.ts";
import type { RebuildLedger } from "../src/scheduled/rebuild.ts";
import { pool } from "./store.contract.ts";

/** A fresh queue and a way to receive (and remove) what reached it. */
export interface QueueUnderTest {
  queue: MessageQueue;
  /** Every message waiting, with the group it was sent in (FIFO queues only). */
  receive(): Promise<OutgoingMessage[]>;
  /** True when the queue is FIFO: groups are kept and a repeated deduplication id is dropped. */
  fifo: boolean;
}

export function queueContract(name: string, makeQueue: () => Promise<QueueUnderTest>): void {
  describe(`MessageQueue contract: ${name}`, () => {
    it("delivers every message of a send larger than one batch, body for body", async () => {
      const { queue, receive, fifo } = await makeQueue();
      const messages = Array.from({ length: 23 }, (_, i) => ({
        body: JSON.stringify({ i, text: "ünïcødé ✓" }),
        ...(fifo ? { groupId: `g${i % 3}`, deduplicationId: `d${i}` } : {}),
      }));
      await queue.send(...messages);
      const got = await receive();
      expect(got.map((m) => m.body).sort()).toEqual(messages.map((m) => m.body).sort());
      if (fifo) {
        const groupOf = new Map(got.map((m) => [m.body, m.groupId]));
        for (const m of messages) expect(groupOf.get(m.body)).toBe(m.groupId);
      }
    });

    it("sends nothing for no messages", async () => {
      const { queue, receive } = await makeQueue();
      await queue.send();
      expect(await receive()).toEqual([]);
    });

    it("drops a repeated deduplication id on a FIFO queue", async () => {
      const { queue, receive, fifo } = await makeQueue();
      if (!fifo) return;
      await queue.send({ body: "one", groupId: "g", deduplicationId: "same" });
      await queue.send({ body: "two", groupId: "g", deduplicationId: "same" });
      expect((await receive()).map((m) => m.body)).toEqual(["one"]);
    });
  });
}

/** A fresh, empty bucket and a way to read back what a key holds. */
export interface SiteBucketUnderTest {
  bucket: SiteBucket;
  read(key: string): Promise<{ body: Uint8Array; contentType: string | undefined } | null>;
}

export function siteBucketContract(name: string, makeBucket: () => Promise<SiteBucketUnderTest>): void {
  describe(`SiteBucket contract: ${name}`, () => {
    it("puts bytes with their content type and lists keys by prefix, sorted", async () => {
      const { bucket, read } = await makeBucket();
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 10]);
      await bucket.put("og/card.png", png, "image/png");
      await bucket.put("data/runs/b/1.json", new TextEncoder().encode("{}"), "application/json");
      await bucket.put("data/runs/a/1.json", new TextEncoder().encode("{}"), "application/json");
      await bucket.put("data/runs.csv", new TextEncoder().encode("a\n"), "text/csv; charset=utf-8");
      expect(await bucket.list("data/runs/")).toEqual(["data/runs/a/1.json", "data/runs/b/1.json"]);
      expect(await bucket.list("")).toHaveLength(4);
      const stored = await read("og/card.png");
      expect([...(stored?.body ?? [])]).toEqual([...png]);
      expect(stored?.contentType).toBe("image/png");
      expect((await read("data/runs.csv"))?.contentType).toBe("text/csv; charset=utf-8");
    });

    it("deletes keys, more than one request holds, and takes a key that is not there as deleted", async () => {
      const { bucket } = await makeBucket();
      const keys = Array.from({ length: 1003 }, (_, i) => `old/${String(i).padStart(4, "0")}.html`);
      // Put 16 at a time (the store contract's pagination test does the same): it is the delete that is tested.
      await pool(keys, 16, (key) => bucket.put(key, new TextEncoder().encode("x"), "text/html; charset=utf-8"));
      await bucket.put("index.html", new TextEncoder().encode("keep"), "text/html; charset=utf-8");
      await bucket.delete([...keys, "never-there.html"]);
      expect(await bucket.list("")).toEqual(["index.html"]);
      await bucket.delete([]);
    });

    it("copies a file within the bucket, bytes and content type, leaving the source", async () => {
      const { bucket, read } = await makeBucket();
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
      await bucket.put("_rebuild/g1/og/a b.png", png, "image/png");
      await bucket.copy("_rebuild/g1/og/a b.png", "og/a b.png");
      const copied = await read("og/a b.png");
      expect([...(copied?.body ?? [])]).toEqual([...png]);
      expect(copied?.contentType).toBe("image/png");
      expect(await bucket.list("")).toEqual(["_rebuild/g1/og/a b.png", "og/a b.png"]);
    });

    it("replaces a key put again", async () => {
      const { bucket, read } = await makeBucket();
      await bucket.put("index.html", new TextEncoder().encode("one"), "text/html; charset=utf-8");
      await bucket.put("index.html", new TextEncoder().encode("two"), "text/html; charset=utf-8");
      expect(new TextDecoder().decode((await read("index.html"))?.body)).toBe("two");
      expect(await bucket.list("")).toEqual(["index.html"]);
    });
  });
}

/** `doc` is any valid run document; the suite saves variants of it. */
export function pendingRunsContract(name: string, makePending: () => Promise<PendingRuns>, doc: RunDocument): void {
  describe(`PendingRuns contract: ${name}`, () => {
    it("saves, replaces, loads and clears a run's finished levels", async () => {
      const pending = await makePending();
      expect(await pending.load(doc.runId)).toBeNull();
      await pending.save({ ...doc, levels: doc.levels.slice(0, 1) });
      expect((await pending.load(doc.runId))?.levels).toHaveLength(1);
      await pending.save(doc);
      expect(await pending.load(doc.runId)).toEqual(doc);
      await pending.clear(doc.runId);
      expect(await pending.load(doc.runId)).toBeNull();
      await pending.clear(doc.runId);
    });

    it("keeps runs apart and refuses run ids that are not one key segment", async () => {
      const pending = await makePending();
      await pending.save({ ...doc, runId: "r-1" });
      await pending.save({ ...doc, runId: "r-2", levels: [] });
      expect((await pending.load("r-1"))?.levels).toHaveLength(doc.levels.length);
      expect((await pending.load("r-2"))?.levels).toEqual([]);
      await expect(pending.load("../escape")).rejects.toBeInstanceOf(StoreError);
    });
  });
}

/** A fresh rebuild ledger. */
export function rebuildLedgerContract(name: string, makeLedger: () => Promise<RebuildLedger>): void {
  describe(`RebuildLedger contract: ${name}`, () => {
    it("finishes a rebuild once, by the batch that completes its set, whatever the order", async () => {
      const ledger = await makeLedger();
      expect(await ledger.finishBatch("g1", 2, 3)).toBe(false);
      expect(await ledger.finishBatch("g1", 0, 3)).toBe(false);
      // A redelivered batch is counted once: the set is still one short.
      expect(await ledger.finishBatch("g1", 0, 3)).toBe(false);
      expect(await ledger.finishBatch("g1", 1, 3)).toBe(true);
      // The finisher's redelivery (its finish died) finishes again; any other batch's does not.
      expect(await ledger.finishBatch("g1", 1, 3)).toBe(true);
      expect(await ledger.finishBatch("g1", 2, 3)).toBe(false);
      // Another rebuild keeps its own count.
      expect(await ledger.finishBatch("g2", 0, 1)).toBe(true);
    });

    it("forgets a rebuild swapped in, leaving the others' records", async () => {
      const ledger = await makeLedger();
      expect(await ledger.finishBatch("g4", 0, 2)).toBe(false);
      expect(await ledger.finishBatch("g5", 0, 2)).toBe(false);
      await ledger.forget("g4");
      // A forgotten rebuild counts from nothing again; the other still holds its batch.
      expect(await ledger.finishBatch("g4", 1, 2)).toBe(false);
      expect(await ledger.finishBatch("g5", 1, 2)).toBe(true);
      await ledger.forget("never-began");
    });

    it("lets exactly one of batches finishing together finish the rebuild", async () => {
      const ledger = await makeLedger();
      const finished = await Promise.all(Array.from({ length: 8 }, (_, b) => ledger.finishBatch("g3", b, 8)));
      expect(finished.filter(Boolean)).toHaveLength(1);
    });
  });
}
