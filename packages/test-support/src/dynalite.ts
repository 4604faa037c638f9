/**
 * @module Starts an in-memory dynalite (DynamoDB API server) on 127.0.0.1 with an OS-chosen port,
 * in the test's own process, and creates a table from its definition (the core's `tableDefinition`).
 */
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";

export interface DynaliteHandle {
  /** Base URL for the DynamoDB client's `endpoint`, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  close(): Promise<void>;
}

/** dynalite ships no types; this is the one call we make. */
type Dynalite = (options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }) => Server;
const dynalite = createRequire(import.meta.url)("dynalite") as Dynalite;

/** Region and fake static credentials for a DynamoDBClient aimed at dynalite. */
export function dynamoClientConfig(endpoint: string) {
  return {
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  };
}

/** Starts dynalite in memory; tables turn ACTIVE on the next tick (`createTableMs: 0`). */
export async function startDynalite(): Promise<DynaliteHandle> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive sockets of SDK clients would hold close() open; drop them.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * Creates a table and waits until it is ACTIVE. The caller passes the core's definition
 * (`tableDefinition(name).createTableInput`), so this package needs no kneeboard package.
 * dynalite has no UpdateTimeToLive, so TTL is not set.
 */
export async function createTable(client: DynamoDBClient, input: CreateTableCommandInput): Promise<void> {
  const tableName = input.TableName as string;
  await client.send(new CreateTableCommand(input));
  // dynalite turns a table ACTIVE on a timer even with createTableMs 0: under load a request can come first.
  for (let attempt = 0; attempt < 200; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}
