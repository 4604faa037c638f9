/**
 * @module The provider that served a target's runs: the dominant one (most ok requests) against
 * the baseline's most common one. Any run that served something counts, valid or not: a route
 * change is exactly what makes runs invalid.
 */

/** Runs a route baseline needs before it judges, and consecutive runs that confirm or resolve a change. */
const MIN_ROUTE_RUNS = 3;
const ROUTE_CONFIRM_RUNS = 2;
const ROUTE_WINDOW_RUNS = 20;

export interface RouteChange {
  before: string[];
  after: string[];
  /** Run indices of the runs served by the new provider. */
  indices: number[];
  /** True when the route moved on again before returning: the open change is updated, not a new one raised. */
  extendsOpen: boolean;
}

/** The most common value, ties going to the most recent. */
function mode(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  let best: string | undefined;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (best === undefined || n >= (counts.get(best) ?? 0)) best = v;
  }
  return best;
}

export class RouteTracker {
  private window: string[] = [];
  /** servedProviders of the latest run on the baseline's provider: the alert's "before". */
  private baselineServed: string[] = [];
  private pending: { provider: string; indices: number[]; served: string[] } | null = null;
  /** An open route change: the provider it left, and consecutive runs back on it. */
  private open: { provider: string; before: string[]; back: number } | null = null;

  /** Feeds one run's served providers; returns a confirmed change, "resolved", or null. */
  observe(index: number, served: readonly string[]): RouteChange | "resolved" | null {
    const dominant = served[0];
    if (dominant === undefined) return null;
    if (this.open) {
      this.open.back = dominant === this.open.provider ? this.open.back + 1 : 0;
      if (this.open.back >= ROUTE_CONFIRM_RUNS) {
        // Back on the old provider: the old baseline returns, and no second change is raised for it.
        this.window = Array(this.open.back).fill(dominant);
        this.baselineServed = [...served];
        this.open = null;
        this.pending = null;
        return "resolved";
      }
    }
    const base = this.window.length >= MIN_ROUTE_RUNS ? mode(this.window) : undefined;
    if (base === undefined || dominant === base) {
      this.pending = null;
      this.window.push(dominant);
      if (this.window.length > ROUTE_WINDOW_RUNS) this.window.shift();
      if (dominant === base || base === undefined) this.baselineServed = [...served];
      return null;
    }
    if (this.pending?.provider !== dominant) this.pending = { provider: dominant, indices: [], served: [...served] };
    this.pending.indices.push(index);
    this.pending.served = [...served];
    if (this.pending.indices.length < ROUTE_CONFIRM_RUNS) return null;
    const extendsOpen = this.open !== null;
    // "before" stays what served before the first departure: returning there is what resolves it.
    this.open ??= { provider: base, before: this.baselineServed, back: 0 };
    const change: RouteChange = {
      before: this.open.before,
      after: this.pending.served,
      indices: this.pending.indices,
      extendsOpen,
    };
    this.window = Array(this.pending.indices.length).fill(dominant);
    this.baselineServed = this.pending.served;
    this.pending = null;
    return change;
  }
}
