/**
 * @module The site bucket and pending-run ports on S3: the static site's files, and the finished levels
 * of sweeps that continue in a later invocation (under `pending/` in the results bucket, never public).
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { StoreError } from "../errors/index.ts";
import type { RunDocument } from "../run/index.ts";
import { type PendingRuns, parsePending, pendingKey, type SiteBucket } from "../scheduled/ports.ts";
import { deleteObjects } from "./s3.ts";

export interface S3BucketOptions {
  bucketName: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_S3`). */
  client?: S3Client;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}

/** The bucket a static site is served from: list by prefix, put bytes with a content type, delete. */
export class S3SiteBucket implements SiteBucket {
  private readonly client: S3Client;
  readonly bucketName: string;

  constructor(options: S3BucketOptions) {
    this.client = options.client ?? new S3Client({});
    this.bucketName = options.bucketName;
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucketName, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucketName,
        Key: key,
        Body: body,
        ContentLength: body.byteLength,
        ContentType: contentType,
      }),
    );
  }

  async delete(keys: string[]): Promise<void> {
    await deleteObjects(this.client, this.bucketName, keys);
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    // Server-side: the bytes never pass through the function; the content type travels with them.
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucketName,
        Key: toKey,
        CopySource: `${this.bucketName}/${fromKey.split("/").map(encodeURIComponent).join("/")}`,
        MetadataDirective: "COPY",
      }),
    );
  }
}

/** Pending runs as objects `pending/<runId>.json` in the results bucket; validated on every load. */
export class S3PendingRuns implements PendingRuns {
  private readonly client: S3Client;
  readonly bucketName: string;

  constructor(options: S3BucketOptions) {
    this.client = options.client ?? new S3Client({});
    this.bucketName = options.bucketName;
  }

  async save(doc: RunDocument): Promise<void> {
    const body = JSON.stringify(doc);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucketName,
        Key: pendingKey(doc.runId),
        Body: body,
        ContentLength: Buffer.byteLength(body, "utf8"),
        ContentType: "application/json",
      }),
    );
  }

  async load(runId: string): Promise<RunDocument | null> {
    const key = pendingKey(runId);
    let body: string;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucketName, Key: key }));
      body = (await out.Body?.transformToString("utf-8")) ?? "";
    } catch (error) {
      if (isNotFound(error)) return null;
      throw new StoreError(`cannot read ${key} from s3://${this.bucketName}`, { cause: error });
    }
    return parsePending(key, body);
  }

  async clear(runId: string): Promise<void> {
    // Deleting an absent object succeeds: clearing what was never saved does nothing.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: pendingKey(runId) }));
  }
}
