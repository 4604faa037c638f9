/**
 * @module A reference server in a child process (`process-child.ts`), reached over IPC: tests and
 * the benchmark measure it the way a real endpoint is measured, without sharing its event loop.
 */
import { fork } from "node:child_process";
import { InFlightStats } from "./engine.ts";
import type { ResponseTiming } from "./log.ts";
import type { ConnectionBehaviour, ServerCounts } from "./server.ts";
import type { ModelSpec } from "./stream-profile.ts";

export interface ReferenceProcess {
  url: string;
  /** The engine's in-flight statistics, copied from the child. */
  stats(model: string): Promise<InFlightStats>;
  reset(model: string): Promise<void>;
  fallbacks(): Promise<number>;
  /** The server's own record of when it wrote each streamed response's first and last token, since the last call. */
  takeTimings(): Promise<ResponseTiming[]>;
  /** Requests the server read and connections it accepted, since it started. */
  counts(): Promise<ServerCounts>;
  close(): Promise<void>;
}

export async function startReferenceProcess(
  models: ModelSpec[],
  options: { connections?: ConnectionBehaviour } = {},
): Promise<ReferenceProcess> {
  const args = [JSON.stringify(models), options.connections ?? "keep-alive"];
  const child = fork(new URL("./process-child.ts", import.meta.url), args, {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
  });
  let nextId = 1;
  const waiting = new Map<number, (body: unknown) => void>();
  const url = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.on("message", (m: { id: number; body: unknown }) => {
      if (m.id === 0) resolve(m.body as string);
      else waiting.get(m.id)?.(m.body);
    });
  });
  const call = <T>(op: string, model?: string) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      waiting.set(id, (body) => resolve(body as T));
      child.send({ id, op, model });
    });
  return {
    url,
    async stats(model) {
      const body = await call<{ maxInFlight: number; log: InFlightStats["log"] }>("stats", model);
      const stats = new InFlightStats();
      stats.maxInFlight = body.maxInFlight;
      stats.log.push(...body.log);
      return stats;
    },
    reset: async (model) => void (await call("reset", model)),
    fallbacks: () => call<number>("fallbacks"),
    takeTimings: () => call<ResponseTiming[]>("timings"),
    counts: () => call<ServerCounts>("counts"),
    close: async () => void (await call("close")),
  };
}
