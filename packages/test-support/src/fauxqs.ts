/**
 * @module Starts an in-process fauxqs (SNS + SQS API server) on 127.0.0.1 with an OS-chosen port.
 * fauxqs's own `startFauxqs` listens on 0.0.0.0; tests stay on loopback, so this builds the app and
 * listens itself.
 */
import type { AddressInfo } from "node:net";
import { buildApp } from "fauxqs";

/** Re-exported so tests that aim the SDK's `*.localhost` hosts at fauxqs need not import fauxqs. */
export { interceptLocalhostDns } from "fauxqs";

export interface FauxqsHandle {
  /** Base URL for the AWS SDK clients' `endpoint`, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  close(): Promise<void>;
}

/** Starts fauxqs on 127.0.0.1, port 0. Queue URLs follow the request's Host, so they stay on loopback. */
export async function startFauxqs(): Promise<FauxqsHandle> {
  const app = buildApp({ logger: false, defaultRegion: "us-east-1" });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** Static fake credentials and the region fauxqs expects; pass to SNSClient / SQSClient with `endpoint`. */
export function fauxqsClientConfig(endpoint: string) {
  return {
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  };
}
