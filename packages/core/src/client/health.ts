/**
 * @module Client health over one level: how busy the measuring process itself was, so a level whose
 * figures the client bent can be told apart. Reads the real process (event loop, CPU), never the
 * injected clock: it measures the machine the client runs on, not the time it reports.
 */
import { type EventLoopUtilization, monitorEventLoopDelay, performance } from "node:perf_hooks";

/** Sampling interval of the event-loop delay monitor, ms: fine enough to see delays of a few ms. */
export const LOOP_DELAY_RESOLUTION_MS = 1;

/** What the process did during a level. */
export interface ClientHealth {
  /** p99 of the event loop's delay past the monitor's interval, ms. */
  eventLoopLagP99Ms: number;
  /** Mean of the same delay, ms: the wait a read that arrives at a random time sees, roughly. */
  eventLoopLagMeanMs: number;
  /** Share of wall time the event loop was busy (not waiting for I/O), 0..1. */
  loopUtilization: number;
  /** CPU time (user + system) over wall time: the share of one core the process used, 0..cores. */
  cpuShare: number;
  /**
   * The wait a first token's read saw, on average, while requests waited for theirs, ms: from the loop
   * delays of those stretches, time-weighted (a stall of B ms holds a read arriving in it B/2 on average,
   * and catches one in proportion to B). The send bursts that open every wave of a closed loop sit
   * there, unseen by the level-wide mean. 0 when no request waited (absent in older documents).
   */
  firstTokenReadDelayMs?: number;
}

/** Told when a request starts to wait for its first token and when it stops (the token came, or the request ended). */
export interface FirstTokenWatch {
  started(): void;
  settled(): void;
}

/** A running measurement; `stop` ends it and returns what it saw. */
export interface HealthWatch extends FirstTokenWatch {
  stop(): ClientHealth;
}

/** Starts measuring the process's own load; call `stop` at the level's end. */
export function watchClientHealth(): HealthWatch {
  const delay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  const startWallMs = performance.now();
  const startCpu = process.cpuUsage();
  const startLoop: EventLoopUtilization = performance.eventLoopUtilization();
  delay.enable();
  // Stalls seen while some request waits for its first token: a tick of our own, since the built-in
  // monitor cannot be paused (its first delay after a pause spans the pause).
  let waiting = 0;
  let waitingSinceMs = 0;
  let waitingMs = 0;
  let stallSquaresMs2 = 0;
  let lastTickMs = startWallMs;
  const tick = setInterval(() => {
    const now = performance.now();
    const stallMs = now - lastTickMs - LOOP_DELAY_RESOLUTION_MS;
    if (waiting > 0 && stallMs > 0) stallSquaresMs2 += stallMs * stallMs;
    lastTickMs = now;
  }, LOOP_DELAY_RESOLUTION_MS);
  tick.unref();
  return {
    started() {
      if (waiting++ === 0) waitingSinceMs = performance.now();
    },
    settled() {
      if (waiting > 0 && --waiting === 0) waitingMs += performance.now() - waitingSinceMs;
    },
    stop() {
      delay.disable();
      clearInterval(tick);
      if (waiting > 0) waitingMs += performance.now() - waitingSinceMs;
      waiting = 0;
      const wallMs = Math.max(1e-9, performance.now() - startWallMs);
      const cpu = process.cpuUsage(startCpu);
      const loop = performance.eventLoopUtilization(startLoop);
      // The histogram records whole timer intervals (ns); the delay is what exceeds the interval.
      const pastInterval = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) : 0);
      return {
        eventLoopLagP99Ms: pastInterval(delay.percentile(99)),
        eventLoopLagMeanMs: pastInterval(delay.mean),
        loopUtilization: loop.utilization,
        cpuShare: (cpu.user + cpu.system) / 1000 / wallMs,
        // A stall of B ms holds a read that arrives in it B/2 on average, and catches one in proportion to B.
        firstTokenReadDelayMs: waitingMs > 0 ? stallSquaresMs2 / (2 * waitingMs) : 0,
      };
    },
  };
}
