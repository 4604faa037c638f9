/** What a pasted link says: the headline of a page's title and description. */
import { describe, expect, it } from "vitest";
import { headline, simulatedLabel } from "../src/lib/share.ts";

const none = { aloneTokensPerSecond: null, concurrentTokensPerSecond: null, atConcurrency: null };

describe("headline", () => {
  it("states the figures with their concurrency, and says a simulated target is simulated", () => {
    expect(
      headline({
        label: "Fast",
        simulated: true,
        aloneTokensPerSecond: 410,
        concurrentTokensPerSecond: 1261,
        atConcurrency: 8,
      }),
    ).toBe("Fast (simulated): 410 tok/s alone, 1,261 tok/s at 8 users");
    expect(headline({ label: "Real", simulated: false, ...none })).toBe("Real: no figures yet");
  });

  it("says (simulated) once when the label already ends with it", () => {
    const label = "Gateway pinned to gamma: metered cost, most of the prompt cached (simulated)";
    expect(headline({ label, simulated: true, ...none })).toBe(`${label}: no figures yet`);
    expect(simulatedLabel(label, true)).toBe(label);
    expect(simulatedLabel("Fast", true)).toBe("Fast (simulated)");
    expect(simulatedLabel("Fast", false)).toBe("Fast");
  });
});
