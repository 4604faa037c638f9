/** @module The store port on an S3 bucket (the results bucket on AWS), keys under an optional prefix. */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { StoreError } from "../errors/index.ts";
import { contentTypeOf } from "../mime/index.ts";
import { checkKey, type Store } from "../store/index.ts";

export interface S3StoreOptions {
  bucketName: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_S3`). */
  client?: S3Client;
  /** Prepended to every key, e.g. `data/`; listed keys come back without it. Default none. */
  prefix?: string;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}

/** S3 deletes at most this many keys in one request. */
const DELETE_BATCH = 1000;

/** Deletes keys of a bucket, a thousand a request; a key that is not there is no error, any other failure is. */
export async function deleteObjects(client: S3Client, bucketName: string, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_BATCH) {
    const batch = keys.slice(i, i + DELETE_BATCH);
    const out = await client.send(
      new DeleteObjectsCommand({ Bucket: bucketName, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
    );
    // A batch answers 200 with its failures listed: each is an error here.
    if (out.Errors?.length)
      throw new StoreError(
        `cannot delete ${out.Errors.map((e) => `${e.Key} (${e.Code})`).join(", ")} from s3://${bucketName}`,
      );
  }
}

/** A store in an S3 bucket: each key is an object at `prefix + key`. */
export class S3Store implements Store {
  private readonly client: S3Client;
  private readonly bucketName: string;
  private readonly prefix: string;

  constructor(options: S3StoreOptions) {
    this.client = options.client ?? new S3Client({});
    this.bucketName = options.bucketName;
    this.prefix = options.prefix ?? "";
  }

  async put(key: string, body: string, options?: { contentType?: string }): Promise<void> {
    checkKey(key);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: this.prefix + key,
          Body: body,
          // Named, so the SDK never treats the body as a stream of unknown length (it warns on "").
          ContentLength: Buffer.byteLength(body, "utf8"),
          // The store holds text documents: an unknown extension is served as plain text.
          ContentType: options?.contentType ?? contentTypeOf(key, "text/plain; charset=utf-8"),
        }),
      );
    } catch (cause) {
      throw new StoreError(`cannot write ${key} to s3://${this.bucketName}/${this.prefix}`, { cause });
    }
  }

  async get(key: string): Promise<string | null> {
    checkKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucketName, Key: this.prefix + key }));
      return (await out.Body?.transformToString("utf-8")) ?? "";
    } catch (error) {
      if (isNotFound(error)) return null;
      throw new StoreError(`cannot read ${key} from s3://${this.bucketName}/${this.prefix}`, { cause: error });
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) checkKey(key);
    await deleteObjects(
      this.client,
      this.bucketName,
      keys.map((k) => this.prefix + k),
    );
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucketName, Prefix: this.prefix + prefix, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(this.prefix.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (cause) {
      throw new StoreError(`cannot list ${prefix} in s3://${this.bucketName}/${this.prefix}`, { cause });
    }
    return keys.sort();
  }
}
