/**
 * @module The search over a load axis (docs/methodology.md#searched-levels), a pure state machine: it
 * says which load to run next, is told each probed level's figures, and ends with the brackets of
 * capacity and the knee and why it stopped. It sends nothing; the sweep runs what it asks for.
 *
 * Bracket: double from `from` (the last step at `to`) until a level misses the SLO or is invalid, and
 * until the aggregate stops rising (the knee is bracketed), or `to`, or over-saturation (TTFT rising
 * while aggregate is flat two steps running). Bisect capacity between the largest load that met and
 * the smallest above it that did not; then the knee between the probed load below it and the knee,
 * both until `hi <= lo x (1 + resolution)` (or `hi = lo + 1` for whole users).
 */
import { KNEE_GAIN_THRESHOLD, kneeIndex } from "../metrics/index.ts";
import type { Bracket, SearchStopReason } from "../run/index.ts";

/** What the search looks for: over `from`..`to` to `resolution`; `whole` for users (whole numbers). */
export interface SearchBounds {
  from: number;
  to: number;
  resolution: number;
  whole: boolean;
}

/** What a probed level came to, as the search reads it. */
export interface ProbedFigures {
  /** Its place on the axis: N, or requests/s. */
  load: number;
  /** Its SLO decision (search/decide.ts), or `not_judged` above a load that missed (`judges`). */
  decision: "meets" | "misses" | "undecided" | "not_judged";
  /** A valid level; an invalid one (saturated, client limited, ...) counts as past the boundary, and ends the bracket. */
  valid: boolean;
  /** Aggregate output tok/s; null without ok requests. */
  aggregate: number | null;
  /** TTFT p50, ms, for the over-saturation stop; null without ok requests. */
  ttftP50Ms: number | null;
  /** Its own upper bound on TTFT p95 was within the SLO's limit (a load at or below it meets on TTFT); absent: false. */
  ttftMet?: boolean;
}

/** A stop the search came to, or one the sweep imposed (failures, rate limits, a signal). */
export interface SearchStop {
  reason: SearchStopReason;
  detail: string;
}

/** What the search found. */
export interface SearchOutcome {
  capacity: Bracket;
  knee: Bracket;
  stop: SearchStop;
}

/** TTFT p50 rising by more than this share per doubling, while aggregate rises by no more than the knee's 15 %, is over-saturation. */
export const OVER_SATURATION_TTFT_RISE = 0.5;
/** Doubling steps running that must show it before the bracket stops. */
export const OVER_SATURATION_STEPS = 2;

export class LoadSearch {
  /** In the order run. */
  private readonly probes: ProbedFigures[] = [];
  private imposed: SearchStop | null = null;
  private overSaturated: string | null = null;
  private bracketing = true;

  constructor(
    private readonly bounds: SearchBounds,
    /** The SLO has a TTFT limit: a capacity needs TTFT's `meets` at its load or above (`boundsTtft`). */
    private readonly ttftLimit = false,
  ) {
    if (!(bounds.from > 0 && bounds.from <= bounds.to)) throw new Error("a search runs from a positive from up to to");
  }

  /**
   * Whether a judged probe at `load` must bound TTFT p95 itself for a `meets`. TTFT, like per-stream
   * speed, is taken as monotone in load, so a load below one whose bound met inherits its `meets`; and
   * the bound (63 requests after the ramp at 0.95) is drawn only where the answer depends on it: a
   * load the capacity bisection probes (it is the capacity if it meets and the gap closes), and `to`.
   * A doubling step below them meets on speed alone; a TTFT `misses` is called at every level.
   */
  boundsTtft(load: number): boolean {
    if (!this.ttftLimit || this.ttftInherited(load)) return false;
    return !this.bracketing || load >= this.bounds.to;
  }

  /** A valid probe at `load` or above bounded TTFT p95 within the limit. */
  private ttftInherited(load: number): boolean {
    return this.probes.some((p) => p.valid && p.load >= load && p.ttftMet === true);
  }

  /** The probed levels so far, in the order run. */
  get probed(): readonly ProbedFigures[] {
    return this.probes;
  }

  /**
   * Whether a load needs an SLO decision: not when a valid lower load already missed (or was itself
   * above one). The SLO is taken to be monotone in load, as the bisection takes it, so such a load is
   * run only for the knee's aggregate.
   */
  judges(load: number): boolean {
    return !this.probes.some(
      (p) => p.valid && p.load < load && (p.decision === "misses" || p.decision === "not_judged"),
    );
  }

  /** Takes a probed level's figures (the load `next` asked for). */
  record(figures: ProbedFigures): void {
    this.probes.push(figures);
    if (this.bracketing) {
      this.doublings.push(figures);
      this.overSaturated ??= this.overSaturation();
    }
  }

  /** The probes of the doubling bracket, in order. */
  private readonly doublings: ProbedFigures[] = [];

  /**
   * The first doubling step that shows over-saturation (TTFT p50 up by over 50 % while aggregate gains at
   * most 15 %), named in the stop even where one step did not stop the bracket; null when none does.
   */
  private saturationSeen(): string | null {
    for (let i = 1; i < this.doublings.length; i++) {
      const [a, b] = [this.doublings[i - 1] as ProbedFigures, this.doublings[i] as ProbedFigures];
      if (a.ttftP50Ms === null || b.ttftP50Ms === null || a.aggregate === null || b.aggregate === null) continue;
      if (!b.valid || a.ttftP50Ms <= 0 || b.ttftP50Ms / a.ttftP50Ms <= 1 + OVER_SATURATION_TTFT_RISE) continue;
      if (a.aggregate > 0 && b.aggregate / a.aggregate > 1 + KNEE_GAIN_THRESHOLD) continue;
      return `over-saturated from ${b.load}: from ${a.load} to ${b.load} TTFT p50 rose from ${round(a.ttftP50Ms)} to ${round(b.ttftP50Ms)} ms while aggregate stayed within ${KNEE_GAIN_THRESHOLD * 100} % (${round(a.aggregate)} to ${round(b.aggregate)} tok/s)`;
    }
    return null;
  }

  /** The sweep stops the search (failures, rate limits, a signal): `next` asks for nothing more. */
  impose(stop: SearchStop): void {
    this.imposed ??= stop;
  }

  /** The next load to run, or null when the search is done. */
  next(): number | null {
    if (this.imposed) return null;
    if (this.bracketing) {
      const step = this.bracketStep();
      if (step !== null) return step;
      this.bracketing = false;
    }
    const capacity = this.capacityGap();
    const inCapacity = capacity ? this.unprobedInside(capacity.lo, capacity.hi) : null;
    if (inCapacity !== null) return inCapacity;
    const knee = this.kneeGap();
    return knee ? this.unprobedInside(knee.lo, knee.hi) : null;
  }

  /**
   * The next load to bisect (lo, hi) at, never one already probed: a load probed inside the gap (one
   * the knee's curve leaves out, being invalid or without an answer) splits it, and the widest part
   * still wider than the resolution is bisected. Null when no part is: the bracket cannot narrow with
   * loads not yet run, and running a load again would only repeat its figures.
   */
  private unprobedInside(lo: number, hi: number): number | null {
    const inside = this.probes.map((p) => p.load).filter((load) => load > lo && load < hi);
    const edges = [...new Set([lo, ...inside, hi])].sort((a, b) => a - b);
    const width = (a: number, b: number) => (this.bounds.whole ? b - a : Math.log(b / a));
    let best: { lo: number; hi: number } | null = null;
    for (let i = 1; i < edges.length; i++) {
      const [a, b] = [edges[i - 1] as number, edges[i] as number];
      if (this.resolved(a, b)) continue;
      if (!best || width(a, b) > width(best.lo, best.hi)) best = { lo: a, hi: b };
    }
    if (!best) return null;
    const mid = this.middle(best.lo, best.hi);
    return this.probes.some((p) => p.load === mid) ? null : mid;
  }

  /** The gap's bracket is as narrow as loads not yet run can make it, but wider than the resolution. */
  private stuck(lo: number, hi: number): boolean {
    return !this.resolved(lo, hi) && this.unprobedInside(lo, hi) === null;
  }

  /** The brackets and why the search stopped (call when `next` is null). */
  outcome(): SearchOutcome {
    return { capacity: this.capacityBracket(), knee: this.kneeBracket(), stop: this.stop() };
  }

  /** The next doubling, or null once the bracket is done. */
  private bracketStep(): number | null {
    const last = this.probes.at(-1);
    if (!last) return this.bounds.from;
    if (this.overSaturated || last.load >= this.bounds.to || !last.valid) return null;
    const capacityBracketed =
      this.probes.some((p) => pastBoundary(p)) || !this.probes.some((p) => p.decision === "meets");
    if (capacityBracketed && this.kneeBracketed()) return null;
    const doubled = last.load * 2;
    return Math.min(this.bounds.to, this.bounds.whole ? Math.round(doubled) : doubled);
  }

  /** The probed levels on the knee's curve: valid, with an aggregate, by load. */
  private curve(): { load: number; aggregate: number }[] {
    return this.probes
      .filter((p): p is ProbedFigures & { aggregate: number } => p.valid && p.aggregate !== null)
      .map((p) => ({ load: p.load, aggregate: p.aggregate }))
      .sort((a, b) => a.load - b.load);
  }

  private kneeBracketed(): boolean {
    const curve = this.curve();
    return kneeIndex(curve.map((p) => p.aggregate)) !== null;
  }

  /** Largest load that met and the smallest above it past the boundary; null when there is no such pair. */
  private capacityGap(): { lo: number; hi: number; undecided: boolean } | null {
    const met = this.probes.filter((p) => p.decision === "meets" && p.valid).map((p) => p.load);
    if (met.length === 0) return null;
    const lo = Math.max(...met);
    const above = this.probes.filter((p) => p.load > lo && (pastBoundary(p) || p.decision === "undecided"));
    if (above.length === 0) return null;
    const hi = Math.min(...above.map((p) => p.load));
    // A level at hi that missed makes the bracket found; one that stayed undecided, undecided.
    const undecided = !above.some((p) => p.load === hi && pastBoundary(p));
    return { lo, hi, undecided };
  }

  /** The knee and the probed load below it; null while the knee is not bracketed or sits at the lowest load. */
  private kneeGap(): { lo: number; hi: number } | null {
    const curve = this.curve();
    const k = kneeIndex(curve.map((p) => p.aggregate));
    if (k === null || k === 0) return null;
    return { lo: (curve[k - 1] as { load: number }).load, hi: (curve[k] as { load: number }).load };
  }

  private resolved(lo: number, hi: number): boolean {
    return hi <= lo * (1 + this.bounds.resolution) || (this.bounds.whole && hi <= lo + 1);
  }

  /** Between lo and hi: the integer midpoint for users, the geometric one for rates (the resolution is relative), to 4 significant digits. */
  private middle(lo: number, hi: number): number {
    if (this.bounds.whole) return Math.floor((lo + hi) / 2);
    const mid = Number(Math.sqrt(lo * hi).toPrecision(4));
    return mid > lo && mid < hi ? mid : (lo + hi) / 2;
  }

  /** TTFT p50 rising by over `OVER_SATURATION_TTFT_RISE` while aggregate gains at most 15 %, for the last `OVER_SATURATION_STEPS` doublings. */
  private overSaturation(): string | null {
    const steps = this.probes.slice(-(OVER_SATURATION_STEPS + 1));
    if (steps.length < OVER_SATURATION_STEPS + 1) return null;
    for (let i = 1; i < steps.length; i++) {
      const [a, b] = [steps[i - 1] as ProbedFigures, steps[i] as ProbedFigures];
      if (a.ttftP50Ms === null || b.ttftP50Ms === null || a.aggregate === null || b.aggregate === null) return null;
      if (a.ttftP50Ms <= 0 || b.ttftP50Ms / a.ttftP50Ms <= 1 + OVER_SATURATION_TTFT_RISE) return null;
      if (a.aggregate > 0 && b.aggregate / a.aggregate > 1 + KNEE_GAIN_THRESHOLD) return null;
    }
    const [first, last] = [steps[0] as ProbedFigures, steps.at(-1) as ProbedFigures];
    return `over-saturated at ${last.load}: from ${first.load} to ${last.load} TTFT p50 rose from ${round(first.ttftP50Ms)} to ${round(last.ttftP50Ms)} ms while aggregate stayed within ${KNEE_GAIN_THRESHOLD * 100} % a step (${round(first.aggregate)} to ${round(last.aggregate)} tok/s); the search ran no higher load`;
  }

  private capacityBracket(): Bracket {
    const bracket = this.capacityFound();
    // A level the client could not keep up with is no boundary of the route's.
    return this.imposed?.reason === "client_limited" && bracket.status === "found"
      ? { ...bracket, status: "not_reached" }
      : bracket;
  }

  private capacityFound(): Bracket {
    const gap = this.capacityGap();
    const met = this.probes.filter((p) => p.decision === "meets" && p.valid).map((p) => p.load);
    if (met.length === 0) {
      const lowest = Math.min(...this.probes.map((p) => p.load));
      const undecided = this.probes.some((p) => p.load === lowest && p.decision === "undecided");
      // A sweep stopped (failures, rate limits, a signal) before anything met has not reached the boundary.
      if (this.probes.length === 0 || this.imposed) return { value: null, lo: null, hi: null, status: "not_reached" };
      return { value: null, lo: null, hi: lowest, status: undecided ? "undecided" : "below_from" };
    }
    const lo = Math.max(...met);
    // Met on speed, but no bound on TTFT p95 at lo or above: the capacity is not established.
    const ttftOpen = this.ttftOpenAt(lo);
    if (gap)
      return {
        value: lo,
        lo,
        hi: gap.hi,
        status: !this.resolved(gap.lo, gap.hi) ? "not_reached" : gap.undecided || ttftOpen ? "undecided" : "found",
      };
    return {
      value: lo,
      lo,
      hi: null,
      status: lo >= this.bounds.to ? (ttftOpen ? "undecided" : "at_to") : "not_reached",
    };
  }

  /** With a TTFT limit, no probe at `load` or above bounded TTFT p95 within it. */
  private ttftOpenAt(load: number): boolean {
    return this.ttftLimit && !this.ttftInherited(load);
  }

  private kneeBracket(): Bracket {
    const curve = this.curve();
    const k = kneeIndex(curve.map((p) => p.aggregate));
    if (k === null) {
      const top = curve.at(-1)?.load ?? null;
      return {
        value: null,
        lo: top,
        hi: null,
        status: top !== null && top >= this.bounds.to ? "at_to" : "not_reached",
      };
    }
    const at = (curve[k] as { load: number }).load;
    if (k === 0) return { value: at, lo: null, hi: at, status: "below_from" };
    const lo = (curve[k - 1] as { load: number }).load;
    return { value: at, lo, hi: at, status: this.resolved(lo, at) ? "found" : "not_reached" };
  }

  private stop(): SearchStop {
    const stop = this.stopOnly();
    const seen = stop.reason === "over_saturation" ? null : this.saturationSeen();
    return seen ? { ...stop, detail: `${stop.detail}; ${seen}` } : stop;
  }

  private stopOnly(): SearchStop {
    if (this.imposed) return this.imposed;
    const capacity = this.capacityBracket();
    if (this.overSaturated) return { reason: "over_saturation", detail: this.overSaturated };
    const invalid = this.probes.find((p) => !p.valid);
    if (capacity.status === "below_from") {
      const lowest = this.probes.find((p) => p.load === capacity.hi);
      const what = lowest && !lowest.valid ? "was invalid" : "missed the SLO";
      return {
        reason: "below_from",
        detail: `the lowest level probed (${capacity.hi}) ${what}, so no load met the SLO`,
      };
    }
    if (capacity.status === "undecided" && capacity.lo !== null && this.ttftOpenAt(capacity.lo))
      return {
        reason: "undecided",
        detail: `the level at ${capacity.lo} met on per-stream speed, but no probe at ${capacity.lo} or above bounded TTFT p95 within the limit`,
      };
    if (capacity.status === "undecided")
      return {
        reason: "undecided",
        detail: `the level at ${capacity.hi} stayed undecided at its cap: the boundary lies near it, within the noise of its samples`,
      };
    if (capacity.status === "at_to")
      return { reason: "reached_to", detail: `the SLO was still met at to (${this.bounds.to})` };
    const knee = this.kneeGap();
    if (knee && this.stuck(knee.lo, knee.hi)) {
      const off = this.probes.filter((p) => p.load > knee.lo && p.load < knee.hi).map((p) => p.load);
      return {
        reason: "resolved",
        detail: `the knee's bracket [${knee.lo}, ${knee.hi}] can narrow no further: the loads inside it (${off.join(", ")}) were probed already and are off the knee's curve (invalid, or without an answer); a load is never run twice`,
      };
    }
    if (invalid && capacity.status !== "found")
      return { reason: "resolved", detail: `the level at ${invalid.load} was invalid, so the bracket ended there` };
    return {
      reason: "resolved",
      detail: `capacity in [${capacity.lo}, ${capacity.hi}] and the knee in [${this.kneeBracket().lo}, ${this.kneeBracket().hi}], to the resolution ${this.bounds.resolution}`,
    };
  }
}

/** A probed level past the SLO's boundary: it missed, or could not be judged valid. */
function pastBoundary(p: ProbedFigures): boolean {
  return p.decision === "misses" || p.decision === "not_judged" || !p.valid;
}

function round(value: number | null): string {
  return value === null ? "-" : String(Math.round(value * 10) / 10);
}
