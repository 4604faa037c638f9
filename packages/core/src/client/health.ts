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
   * How long first tokens' reads waited in the client, median over the level's requests, ms: each read
   * comes out of the stall since the watch's 1 ms tick last ran (or, when the tick has just run, the
   * stall that tick ended), the most that read can have waited. The send burst that opens each wave
   * of a closed loop sits there, unseen by the level-wide mean. 0 when no request was timed
   * (absent in older documents).
   */
  firstTokenReadDelayMs?: number;
}

/** Told when a request's first content is read, or the request ended without any. */
export interface FirstTokenWatch {
  firstTokenRead(): void;
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
  // A tick of our own, due every ms: a first token's read comes out of the stall since it last ran, or,
  // when it has just run (a descheduled process wakes to its timers first), out of the stall it ended.
  // Either is the most that read can have waited.
  let lastTickMs = startWallMs;
  let lastTickLateMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    lastTickLateMs = Math.max(0, now - lastTickMs - LOOP_DELAY_RESOLUTION_MS);
    lastTickMs = now;
  }, LOOP_DELAY_RESOLUTION_MS);
  tick.unref();
  const firstTokenStallsMs: number[] = [];
  return {
    firstTokenRead() {
      const sinceTickMs = performance.now() - lastTickMs;
      firstTokenStallsMs.push(
        sinceTickMs > LOOP_DELAY_RESOLUTION_MS ? sinceTickMs - LOOP_DELAY_RESOLUTION_MS : lastTickLateMs,
      );
    },
    stop() {
      delay.disable();
      clearInterval(tick);
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
        firstTokenReadDelayMs: median(firstTokenStallsMs),
      };
    },
  };
}

/** The middle value (0 for none). */
function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
