/**
 * @module The DynamoDB side of the AWS store: one table holding the run index, run claims, the
 * alert ledger and rate-limit counters.
 *
 * Key scheme (single table, `pk` string hash key, `sk` string range key):
 * | item                  | pk                  | sk                           | other attributes                          |
 * |-----------------------|---------------------|------------------------------|-------------------------------------------|
 * | run index entry       | `run#<targetId>`    | `<run document key>`         | `entry` (RunIndexEntry), targetId, startedAt |
 * | target list           | `targets`           | `<targetId>`                 | targetId                                   |
 * | series summary        | `series#<targetId>` | `<scenario>`                 | `summary` (gzipped SeriesSummary JSON), version |
 * | run claim             | `claim#<runId>`     | `claim`                      | targetId, owner, leaseUntil (ms), status, expiresAt |
 * | alert delivery        | `alert#<alertId>`   | `<state>#<channel>`          | claimedAt                                  |
 * | rate-limit window     | `rate#<key>`        | `<windowMs>#<window number>` | n (count), expiresAt                       |
 * | rebuild's batches     | `rebuild#<generation>` | `batches`                 | done (number set), finisher, expiresAt     |
 * Run keys embed the compact start time (`runs/<t>/<YYYYMMDDTHHMMSSZ>-<runId>.json`), so a target's
 * entries come back from one Query oldest first. The target list lets `entries()` read every target
 * with Queries instead of a Scan of the whole table. A series summary is replaced only by a write
 * conditional on the version it was read at, so writers recording runs of one series never drop each
 * other's run. `expiresAt` (epoch seconds) is the TTL attribute;
 * correctness never waits for TTL deletion (leases and windows are checked against the clock).
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { z } from "zod";
import type { AlertState } from "../alerts/index.ts";
import { ClaimError, type ClaimOptions, type ClaimResult, type RunClaims } from "../claims/index.ts";
import { StoreError } from "../errors/index.ts";
import type { AlertLedger } from "../ledger/index.ts";
import type { RateLimiter } from "../limiter/index.ts";
import { mapBounded } from "../pool/index.ts";
import { type RunIndex, RunIndexEntry } from "../run-index/index.ts";
import { mergeSummary, SeriesSummary, sameKeeps, summarizeAll } from "../run-index/summary.ts";
import type { RebuildLedger } from "../scheduled/rebuild.ts";

/** The table as infrastructure and tests create it. */
export interface TableDefinition {
  tableName: string;
  /** Key attributes and their types (SST's `fields`). */
  fields: { pk: "string"; sk: "string" };
  primaryIndex: { hashKey: "pk"; rangeKey: "sk" };
  billingMode: "PAY_PER_REQUEST";
  /** The TTL attribute: epoch seconds. */
  ttl: "expiresAt";
  /** The same table as a CreateTable request (TTL is a separate UpdateTimeToLive call on AWS). */
  createTableInput: {
    TableName: string;
    AttributeDefinitions: { AttributeName: "pk" | "sk"; AttributeType: "S" }[];
    KeySchema: { AttributeName: "pk" | "sk"; KeyType: "HASH" | "RANGE" }[];
    BillingMode: "PAY_PER_REQUEST";
  };
}

/** The kneeboard table named tableName. */
export function tableDefinition(tableName: string): TableDefinition {
  return {
    tableName,
    fields: { pk: "string", sk: "string" },
    primaryIndex: { hashKey: "pk", rangeKey: "sk" },
    billingMode: "PAY_PER_REQUEST",
    ttl: "expiresAt",
    createTableInput: {
      TableName: tableName,
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
    },
  };
}

export interface DynamoOptions {
  tableName: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_DYNAMODB`). */
  client?: DynamoDBClient;
}

/** Every adapter here shares one way to build its document client. */
function documentClient(options: DynamoOptions): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(options.client ?? new DynamoDBClient({}), {
    // Optional fields of entries (route.provider, ...) are absent, not errors.
    marshallOptions: { removeUndefinedValues: true },
  });
}

function isConditionFailed(error: unknown): boolean {
  return (error as { name?: string }).name === "ConditionalCheckFailedException";
}

const epochSeconds = (ms: number) => Math.ceil(ms / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** BatchWrite takes at most 25 requests. */
const BATCH_SIZE = 25;
/** Retries of unprocessed items (throttling) before giving up, with doubling backoff from 50 ms. */
const BATCH_RETRIES = 8;
/** Targets read at once by `entries()`; bounded so 100 targets never open 100 Queries together. */
const QUERY_CONCURRENCY = 8;

/** Validates an item read back (a boundary, like any file): a bad one names its key. */
function parseItem<T>(schema: z.ZodType<T>, item: Record<string, unknown>): T {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StoreError(
    `DynamoDB item ${String(item.pk)} / ${String(item.sk)} is invalid: ${issue?.path.join(".")}: ${issue?.message}`,
  );
}

/** What every port on the table holds: the document client and the table's name. */
abstract class TableClient {
  protected readonly doc: DynamoDBDocumentClient;
  protected readonly tableName: string;

  constructor(options: DynamoOptions) {
    this.doc = documentClient(options);
    this.tableName = options.tableName;
  }
}

const IndexItem = z.object({ entry: RunIndexEntry });
const TargetItem = z.object({ targetId: z.string() });
const SummaryItem = z.object({ summary: z.instanceof(Uint8Array), version: z.number().int() });
/**
 * How long a writer keeps trying at a series summary that others replace meanwhile (a random backoff
 * from 20 ms, at most 660 ms): a deadline, not a count, as each round lets one of the contending
 * writers through, however many there are and however slow the machine.
 */
const SUMMARY_PATIENCE_MS = 60_000;

/** A series summary as its item holds it (null: kept by another rule), and the version it was read at. */
type KeptSummary = { summary: SeriesSummary | null; version: number };

/** The run index in DynamoDB: a Query per target, a target list for all of them. */
export class DynamoRunIndex extends TableClient implements RunIndex {
  async record(...entries: RunIndexEntry[]): Promise<void> {
    // One request per key (a batch may not name a key twice): the last entry of a key wins.
    const byKey = new Map<string, RunIndexEntry>();
    for (const e of entries) byKey.set(e.key, RunIndexEntry.parse(e));
    const targets = new Set([...byKey.values()].map((e) => e.targetId));
    // Entries first, then the target list: a listed target always has its entries.
    await this.batchPut(
      [...byKey.values()].map((entry) => ({
        pk: `run#${entry.targetId}`,
        sk: entry.key,
        targetId: entry.targetId,
        startedAt: entry.startedAt,
        entry,
      })),
    );
    await this.updateSummaries([...byKey.values()]);
    await this.batchPut([...targets].map((targetId) => ({ pk: "targets", sk: targetId, targetId })));
  }

  /** Merges fresh entries into their series' summaries (`mergeSummary`), a series at a time. */
  private async updateSummaries(fresh: RunIndexEntry[]): Promise<void> {
    const groups = new Map<string, RunIndexEntry[]>();
    for (const e of fresh) {
      const key = `${e.targetId}\n${e.scenario}`;
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    await mapBounded([...groups.values()], QUERY_CONCURRENCY, (list) => this.updateSummary(list));
  }

  private async updateSummary(fresh: RunIndexEntry[]): Promise<void> {
    const { targetId, scenario } = fresh[0] as RunIndexEntry;
    const began = Date.now();
    for (let attempt = 0; Date.now() - began < SUMMARY_PATIENCE_MS; attempt++) {
      const current = await this.readSummary(targetId, scenario);
      const merged = current?.summary ? mergeSummary(current.summary, fresh) : null;
      if (merged && current) {
        if (await this.writeSummary(merged, current.version)) return;
      } else {
        // No summary yet (a store recorded before them), or one the fresh entries cannot be merged into:
        // derived from every entry of the target (written above), its other series' too where missing.
        const derived = await this.deriveSummaries(targetId);
        const own = derived.find((s) => s.scenario === scenario);
        if (!own || (await this.writeSummary(own, current?.version ?? null))) return;
      }
      await sleep(20 + Math.random() * 20 * 2 ** Math.min(attempt, 5));
    }
    throw new StoreError(`run index: the summary of ${targetId} / ${scenario} kept changing; gave up`);
  }

  /** The target's summaries derived from its entries; each series without a summary item gets one. */
  private async deriveSummaries(targetId: string): Promise<SeriesSummary[]> {
    const derived = summarizeAll(await this.entriesOf(targetId)).sort((a, b) => a.scenario.localeCompare(b.scenario));
    const present = new Set((await this.queryAll(`series#${targetId}`)).map((item) => String(item.sk)));
    await mapBounded(
      derived.filter((s) => !present.has(s.scenario)),
      QUERY_CONCURRENCY,
      (s) => this.writeSummary(s, null),
    );
    return derived;
  }

  private async readSummary(targetId: string, scenario: string): Promise<KeptSummary | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `series#${targetId}`, sk: scenario },
        ConsistentRead: true,
      }),
    );
    return out.Item ? this.parseSummary(out.Item) : undefined;
  }

  private parseSummary(item: Record<string, unknown>): KeptSummary {
    const { summary, version } = parseItem(SummaryItem, item);
    const parsed = SeriesSummary.safeParse(JSON.parse(gunzipSync(summary).toString("utf8")));
    if (!parsed.success)
      throw new StoreError(`DynamoDB item ${String(item.pk)} / ${String(item.sk)} is not a valid summary`);
    // Kept by another rule: as if there were none (it is derived again).
    return { summary: sameKeeps(parsed.data) ? parsed.data : null, version };
  }

  /** Writes a summary if its item is still at `version` (null: absent); false when another writer was first. */
  private async writeSummary(summary: SeriesSummary, version: number | null): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: `series#${summary.targetId}`,
            sk: summary.scenario,
            summary: gzipSync(JSON.stringify(summary)),
            version: (version ?? 0) + 1,
          },
          ...(version === null
            ? { ConditionExpression: "attribute_not_exists(pk)" }
            : { ConditionExpression: "version = :v", ExpressionAttributeValues: { ":v": version } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async summaries(targetId: string): Promise<SeriesSummary[]> {
    const items = await this.queryAll(`series#${targetId}`);
    const kept = items.map((item) => this.parseSummary(item).summary);
    if (kept.length > 0 && kept.every((k) => k !== null)) return kept as SeriesSummary[];
    // Recorded before summaries were kept (or by another rule): derived once from the entries, and kept
    // (a write that loses to a recording writer leaves that writer's summary, as new as this one).
    const derived = summarizeAll(await this.entriesOf(targetId)).sort((a, b) => a.scenario.localeCompare(b.scenario));
    const versions = new Map(items.map((item) => [String(item.sk), parseItem(SummaryItem, item).version]));
    await mapBounded(derived, QUERY_CONCURRENCY, (s) => this.writeSummary(s, versions.get(s.scenario) ?? null));
    return derived;
  }

  private async batchPut(items: Record<string, unknown>[]): Promise<void> {
    for (let i = 0; i < items.length; i += BATCH_SIZE) {
      let requests: NonNullable<BatchWriteCommandInput["RequestItems"]> = {
        [this.tableName]: items.slice(i, i + BATCH_SIZE).map((Item) => ({ PutRequest: { Item } })),
      };
      for (let attempt = 0; ; attempt++) {
        const out = await this.doc.send(new BatchWriteCommand({ RequestItems: requests }));
        const left = out.UnprocessedItems?.[this.tableName] ?? [];
        if (left.length === 0) break;
        if (attempt >= BATCH_RETRIES) {
          throw new StoreError(`run index: ${left.length} items still unprocessed after ${attempt + 1} tries`);
        }
        await sleep(50 * 2 ** attempt);
        requests = { [this.tableName]: left };
      }
    }
  }

  /** Every item of one partition, page by page (a Query returns at most 1 MB). */
  private async queryAll(pk: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": pk },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  private async entriesOf(targetId: string): Promise<RunIndexEntry[]> {
    return (await this.queryAll(`run#${targetId}`)).map((item) => parseItem(IndexItem, item).entry);
  }

  async entries(targetId?: string): Promise<RunIndexEntry[]> {
    if (targetId !== undefined) return this.entriesOf(targetId);
    return (await mapBounded(await this.targetIds(), QUERY_CONCURRENCY, (t) => this.entriesOf(t))).flat();
  }

  async targetIds(): Promise<string[]> {
    // The sort key is the target id: a Query returns them in id order.
    return (await this.queryAll("targets")).map((item) => parseItem(TargetItem, item).targetId);
  }
}

const ClaimItem = z.object({
  owner: z.string(),
  leaseUntil: z.number(),
  status: z.enum(["claimed", "done"]),
});

/** How long claim items stay after their lease, so a late duplicate delivery still finds `done`. */
const CLAIM_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** Run claims as conditional writes on `claim#<runId>`: one owner wins, however many race. */
export class DynamoRunClaims extends TableClient implements RunClaims {
  private key(runId: string) {
    return { pk: `claim#${runId}`, sk: "claim" };
  }

  async claim(runId: string, options: ClaimOptions): Promise<ClaimResult> {
    for (;;) {
      if (await this.tryPut(runId, options)) return "claimed";
      // dynalite does not return the old item on a failed condition, so read it.
      const current = await this.read(runId);
      if (current?.status === "done") return "done";
      if (current !== null) return "held";
      // Released between our write and our read: the run is free again, so try once more.
    }
  }

  /** The conditional write: no claim, or not done and (expired or already ours). */
  private async tryPut(runId: string, options: ClaimOptions): Promise<boolean> {
    const leaseUntil = options.nowMs + options.ttlMs;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.key(runId),
            targetId: options.targetId,
            owner: options.owner,
            leaseUntil,
            status: "claimed",
            expiresAt: epochSeconds(leaseUntil + CLAIM_RETENTION_MS),
          },
          ConditionExpression:
            "attribute_not_exists(pk) OR (#status <> :done AND (leaseUntil < :now OR #owner = :owner))",
          ExpressionAttributeNames: { "#status": "status", "#owner": "owner" },
          ExpressionAttributeValues: { ":done": "done", ":now": options.nowMs, ":owner": options.owner },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  private async read(runId: string): Promise<z.infer<typeof ClaimItem> | null> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: this.key(runId), ConsistentRead: true }),
    );
    return out.Item ? parseItem(ClaimItem, out.Item) : null;
  }

  async complete(runId: string, owner: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(runId),
          UpdateExpression: "SET #status = :done",
          ConditionExpression: "#owner = :owner",
          ExpressionAttributeNames: { "#status": "status", "#owner": "owner" },
          ExpressionAttributeValues: { ":done": "done", ":owner": owner },
        }),
      );
    } catch (error) {
      if (isConditionFailed(error)) throw new ClaimError(`${owner} does not hold the claim of ${runId}`);
      throw error;
    }
  }

  async handOver(runId: string, fromOwner: string, options: ClaimOptions): Promise<ClaimResult> {
    const leaseUntil = options.nowMs + options.ttlMs;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...this.key(runId),
            targetId: options.targetId,
            owner: options.owner,
            leaseUntil,
            status: "claimed",
            expiresAt: epochSeconds(leaseUntil + CLAIM_RETENTION_MS),
          },
          // Only while the old owner still holds it: a second taker from the same holder fails here.
          ConditionExpression: "#owner = :from AND #status <> :done",
          ExpressionAttributeNames: { "#status": "status", "#owner": "owner" },
          ExpressionAttributeValues: { ":done": "done", ":from": fromOwner },
        }),
      );
      return "claimed";
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      return (await this.read(runId))?.status === "done" ? "done" : "held";
    }
  }

  async release(runId: string, owner: string): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: this.key(runId),
          ConditionExpression: "#owner = :owner AND #status <> :done",
          ExpressionAttributeNames: { "#status": "status", "#owner": "owner" },
          ExpressionAttributeValues: { ":done": "done", ":owner": owner },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
}

/** Delivered alert states as conditional puts: the first claim of (alert, state, channel) wins. */
export class DynamoAlertLedger extends TableClient implements AlertLedger {
  async claim(alertId: string, state: AlertState, channel: string): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `alert#${alertId}`, sk: `${state}#${channel}`, claimedAt: new Date().toISOString() },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async release(alertId: string, state: AlertState, channel: string): Promise<void> {
    // Deleting an absent item succeeds, so releasing what was never claimed does nothing.
    await this.doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: { pk: `alert#${alertId}`, sk: `${state}#${channel}` } }),
    );
  }
}

/** A fixed-window counter per key: one conditional increment per request, no read first. */
export class DynamoRateLimiter extends TableClient implements RateLimiter {
  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean> {
    if (limit <= 0) return false;
    const window = Math.floor(nowMs / windowMs);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `rate#${key}`, sk: `${windowMs}#${window}` },
          UpdateExpression: "ADD n :one SET expiresAt = :expiresAt",
          ConditionExpression: "attribute_not_exists(n) OR n < :limit",
          ExpressionAttributeValues: {
            ":one": 1,
            ":limit": limit,
            // Kept one window past its end, then TTL removes it.
            ":expiresAt": epochSeconds((window + 2) * windowMs),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}

/** A rebuild's ledger item. */
const rebuildKey = (generation: string) => ({ pk: `rebuild#${generation}`, sk: "batches" });

/** How long a rebuild's ledger item is kept where it is not forgotten (a given-up rebuild's), ms (TTL removes it after). */
const REBUILD_ITEM_MS = 7 * 24 * 3_600_000;

/**
 * A fanned-out rebuild's batches: each batch ADDs its number to a set (idempotent, so a redelivered
 * batch is counted once); the batch that sees the set complete claims the finish with a conditional
 * write that only it (or its own redelivery) passes.
 */
export class DynamoRebuildLedger extends TableClient implements RebuildLedger {
  async forget(generation: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: rebuildKey(generation) }));
  }

  async finishBatch(generation: string, batch: number, batches: number): Promise<boolean> {
    const Key = rebuildKey(generation);
    const out = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key,
        UpdateExpression: "ADD done :batch SET expiresAt = if_not_exists(expiresAt, :expiresAt)",
        ExpressionAttributeValues: {
          ":batch": new Set([batch]),
          ":expiresAt": epochSeconds(Date.now() + REBUILD_ITEM_MS),
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    const done = out.Attributes?.done as Set<number> | undefined;
    if ((done?.size ?? 0) < batches) return false;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression: "SET finisher = :batch",
          ConditionExpression: "attribute_not_exists(finisher) OR finisher = :batch",
          ExpressionAttributeValues: { ":batch": batch },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
