/**
 * @module The open loop's schedule lag: how late kneeboard's sends leave against their Poisson
 * schedule at 10, 100 and 1,000 requests/s, against a reference target in another process, with the
 * achieved rate and the in-flight figures beside it. Printed, never asserted.
 */
import { parseConfig, workloadFor } from "@kneeboard/core/config";
import type { Level } from "@kneeboard/core/run";
import { runSweep } from "@kneeboard/core/sweep";
import { startReferenceProcess } from "@kneeboard/reference/process";

/** Short answers, so 1,000 requests/s stays within what the reference process serves on a shared core. */
const PROFILE = { stepBaseMs: 5, stepPerSeqMs: 0, slots: 4096, prefillBaseMs: 2, prefillPerTokenMs: 0 };
const RATES_PER_SECOND = [10, 100, 1000];
/** Sends per level: at least 200, about 3 s of schedule at the highest rates. */
const sendsAt = (rate: number) => Math.max(200, Math.round(rate * 3));

export async function benchOpenLoop(log: (line: string) => void): Promise<void> {
  const server = await startReferenceProcess([{ kind: "model", id: "open", profile: PROFILE }]);
  try {
    log(
      "\nopen loop: schedule lag against the Poisson schedule (reference target in another process, 8 tokens per answer)",
    );
    log("rate req/s  sends  achieved req/s  lag p50 ms  lag p99 ms  tolerance ms  in flight mean / max  valid");
    for (const rate of RATES_PER_SECOND) {
      const config = parseConfig(
        JSON.stringify({
          targets: [
            { id: "open", label: "open (simulated)", baseURL: server.url, model: "open", route: { gateway: "direct" } },
          ],
          workload: {
            arrival: { mode: "poisson", ratesPerSecond: [rate], seed: 1, maxInFlight: 4096 },
            requestsPerLevel: sendsAt(rate),
            warmupRequests: 1,
            maxTokens: 8,
            promptTokens: 50,
          },
        }),
      );
      const target = config.targets[0] as (typeof config.targets)[number];
      const doc = await runSweep({ target, workload: workloadFor(config, target), simulated: true });
      const level = doc.levels[0] as Level;
      const fmt = (n: number | null | undefined, digits = 1) => (n == null ? "-" : n.toFixed(digits));
      log(
        [
          String(rate).padStart(10),
          String(level.requests.sent).padStart(6),
          fmt(level.open?.achievedRatePerSecond).padStart(15),
          fmt(level.open?.scheduleLagMs?.p50, 2).padStart(11),
          fmt(level.open?.scheduleLagMs?.p99, 2).padStart(11),
          fmt(10 + 30 / rate, 2).padStart(13),
          `${fmt(level.open?.inFlightMean)} / ${level.open?.inFlightMax}`.padStart(21),
          `  ${level.valid ? "yes" : level.invalid.map((r) => r.code).join(", ")}`,
        ].join(" "),
      );
    }
  } finally {
    await server.close();
  }
}
