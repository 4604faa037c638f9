/** @module `kneeboard serve-reference`: the reference targets as OpenAI-compatible endpoints until interrupted. */
import { referenceModels, startReferenceServer } from "@kneeboard/reference";

export async function serveReference(options: { port: number; io: { out: NodeJS.WritableStream } }): Promise<number> {
  const server = await startReferenceServer({ port: options.port, models: referenceModels() });
  const models = referenceModels().map((m) => m.id);
  options.io.out.write(`reference targets (simulated) at ${server.url}\nmodels: ${models.join(", ")}\nCtrl-C stops.\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return 0;
}
