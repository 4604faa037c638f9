/** @module A reference server in its own process, so tests measure it the way a real endpoint is measured. */
import { type ConnectionBehaviour, startReferenceServer } from "./server.ts";
import type { ModelSpec } from "./stream-profile.ts";

const models = JSON.parse(process.argv[2] ?? "[]") as ModelSpec[];
const connections = (process.argv[3] ?? "keep-alive") as ConnectionBehaviour;
const server = await startReferenceServer({ models, connections });
process.on(
  "message",
  (message: { id: number; model?: string; op: "stats" | "reset" | "fallbacks" | "timings" | "counts" | "close" }) => {
    const reply = (body: unknown) => process.send?.({ id: message.id, body });
    if (message.op === "close")
      return void server
        .close()
        .then(() => reply(null))
        .then(() => process.exit(0));
    if (message.op === "fallbacks") return reply(server.fallbacks.length);
    if (message.op === "timings") return reply(server.takeTimings());
    if (message.op === "counts") return reply(server.counts());
    const stats = server.engine(message.model as string).stats;
    if (message.op === "reset") stats.reset();
    const body = { maxInFlight: stats.maxInFlight, log: message.op === "stats" ? stats.log : [] };
    reply(body);
  },
);
process.send?.({ id: 0, body: server.url });
