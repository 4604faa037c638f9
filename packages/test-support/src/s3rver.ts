/**
 * @module Starts s3rver (S3 API server) for tests, as a child process on 127.0.0.1 with an OS-chosen
 * port and a fresh temporary directory. A child, because s3rver needs `--openssl-legacy-provider`
 * and the test worker's own Node runs without it; `npm test` then needs no environment set up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";

export interface S3rverHandle {
  /** Base URL for the S3 client's `endpoint`, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  /** Creates a bucket (path-style), ready for puts. */
  createBucket(name: string): Promise<void>;
  /** Stops the child by its PID and removes its directory. */
  close(): Promise<void>;
}

/**
 * Region, credentials and path-style addressing for an S3Client aimed at s3rver. s3rver checks
 * signatures and knows one key pair, `S3RVER`/`S3RVER`; any other fails with InvalidAccessKeyId.
 */
export function s3ClientConfig(endpoint: string) {
  return {
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    forcePathStyle: true,
  };
}

const CHILD = fileURLToPath(new URL("./s3rver-child.mjs", import.meta.url));

/** Waits for the child's `{"port":N}` line; rejects if it exits or stays silent for 15 s. */
function readPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`s3rver did not start: ${err}`)), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${err}`));
    });
  });
}

/** Starts s3rver in a child process; call `close()` in afterAll. */
export async function startS3rver(): Promise<S3rverHandle> {
  const directory = await mkdtemp(join(tmpdir(), "kneeboard-s3rver-"));
  const child = spawn(process.execPath, ["--openssl-legacy-provider", CHILD, directory], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let port: number;
  try {
    port = await readPort(child);
  } catch (error) {
    child.kill();
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client(s3ClientConfig(endpoint));
  return {
    endpoint,
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async close() {
      client.destroy();
      if (child.exitCode === null && child.pid !== undefined) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        try {
          process.kill(child.pid, "SIGTERM");
          await exited;
        } catch (error) {
          // Exited on its own since we looked: nothing to stop.
          if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
        }
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
