/** @module A valid alert for tests, with overrides. */
import type { Alert } from "../alerts/index.ts";

export function makeAlert(overrides: Partial<Alert> = {}): Alert {
  const targetId = overrides.targetId ?? "acme-llama-70b";
  return {
    id: `${targetId}:regression:2025-01-10T00:00:00Z`,
    targetId,
    scenario: "chat",
    label: "Acme Llama 70B",
    kind: "regression",
    state: "open",
    severity: "warning",
    metrics: ["singleStreamOutputTokensPerSecond", "peakAggregateOutputTokensPerSecond"],
    changes: [
      {
        metric: "singleStreamOutputTokensPerSecond",
        before: { median: 82.4, spread: 2.1, runs: 20 },
        after: { median: 55.1, spread: 1.7, runs: 3 },
        relativeChange: 55.1 / 82.4 - 1,
      },
      {
        metric: "peakAggregateOutputTokensPerSecond",
        before: { median: 1210, spread: 40, runs: 20 },
        after: { median: 800, spread: 30, runs: 3 },
        relativeChange: 800 / 1210 - 1,
      },
    ],
    served: null,
    changedAt: "2025-01-10T00:00:00Z",
    openedAt: "2025-01-11T00:00:00Z",
    resolvedAt: null,
    updatedAt: "2025-01-11T00:00:00Z",
    runIds: ["r1", "r2", "r3"],
    title: "Acme Llama 70B: single-stream output fell 33 % (82.4 → 55.1 tok/s)",
    ...overrides,
  };
}

export function makeRouteChange(overrides: Partial<Alert> = {}): Alert {
  const targetId = overrides.targetId ?? "acme-llama-70b";
  return makeAlert({
    id: `${targetId}:route_change:2025-01-12T00:00:00Z`,
    targetId,
    kind: "route_change",
    severity: "info",
    metrics: [],
    changes: [],
    served: { before: ["provider-a"], after: ["provider-b"] },
    title: "Acme Llama 70B: now served by provider-b instead of provider-a",
    ...overrides,
  });
}
