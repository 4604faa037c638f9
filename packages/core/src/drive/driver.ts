/**
 * @module The `LevelDriver` interface: what runs one load kind's measured sends (closed loop, open
 * loop, ...), on this thread or, split by the threading wrapper (sweep/threads.ts), on worker threads.
 * Everything a driver reads its time from is the level's injected scheduler. Each kind's driver is
 * part of its module (kinds/<kind>/); the level runner, the threads and the summary take it as it is.
 */
import type { ClientHealth } from "../client/health.ts";
import type { RawResult } from "../client/index.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { InFlightTracker } from "./in-flight.ts";
import type { LevelCounters, LoopResult, WaitKind, WorkerDebt } from "./loop.ts";
import type { Turn } from "./session.ts";

/**
 * One level's sends as a driver runs them, serializable (a worker thread is given one): each kind's
 * own (a closed loop's workers and their first-send delays, an open loop's stream of its schedule, ...).
 */
export interface DriveSpec {
  kind: string;
}

/** What a driver's sends run on: the level's counters and time, and where results and waits go. */
export interface DriveLoop {
  counters: LevelCounters;
  scheduler: Scheduler;
  /** The level's abort: ends sends and waits at once (a stop, the deadline, an early end). */
  signal: AbortSignal;
  /**
   * Called once when the driver can send (threads: once every one is loaded): the level's time starts
   * now; returns its end on the scheduler's clock (Infinity for a counted level), after which nothing is sent.
   */
  start(): number;
  /** Sends request `index`; in a conversation, as `turn`. */
  send(index: number, turn?: Turn): Promise<RawResult>;
  /** Each result as it comes; false stops the worker that sent it. */
  onResult(result: LoopResult): boolean;
  /** A wait served (after a 429, or a conversation's think time), from and to on the scheduler's clock. */
  onWait(fromMs: number, toMs: number, kind: WaitKind): void;
  /** The level's workers' 429 debts by worker, carried from its warm-up; absent on a worker thread (nothing owed). */
  debts?: WorkerDebt[];
}

/** What a driver observed beside the results: an arrival schedule's lags (none for a closed loop). */
export interface DriveRecord {
  /** How late each send left against its schedule, ms, in send order (empty without a schedule). */
  scheduleLagsMs: number[];
  /** A send was due with `maxInFlight` requests in flight, and waited. */
  maxInFlightHit: boolean;
  /** The client health of each worker thread the sends ran on (absent when they ran on this thread). */
  threadHealths?: ClientHealth[];
}

/** The level's measured window as the summary sees it, for a driver to describe its load in. */
export interface LevelWindow {
  firstSendMs: number;
  lastSendMs: number;
  /** Measured sends, sorted, scheduler ms. */
  sendTimes: number[];
  /** The measured requests' time in flight. */
  inFlight: InFlightTracker;
  /** When the level's ramp (its first N sends) ended; judging starts there. */
  rampEndMs: number;
  /** True when sends went on after the ramp (there is a refill to judge). */
  measured: boolean;
}

/**
 * What a level sent on a schedule (an open loop, a trace replay) shows: its rates, what was in flight
 * and how late sends left; its validity rests on the schedule, not on N in flight.
 */
export interface ScheduleInput {
  /** A trace replay's rate: its window's requests over their span at the level's speedup, requests/s (an open loop's is its load's). */
  ratePerSecond?: number;
  achievedRatePerSecond: number | null;
  inFlightMean: number;
  inFlightMax: number;
  /** How late each send left against its schedule, ms. */
  scheduleLagsMs: number[];
  /** The most requests allowed in flight, and whether a due send found them all in flight. */
  maxInFlight: number;
  maxInFlightHit: boolean;
}

/** What the level's summary says of its load: requests in flight, and a schedule's or a start spread's figures. */
export interface LoadFigures {
  /** Time-weighted mean of requests in flight over the judged window. */
  achievedConcurrency: number;
  /** A level sent on a schedule: its arrivals. */
  schedule?: ScheduleInput;
  /** A closed loop's start spread, ms. */
  startSpreadMs?: number;
  /** The level's workers held sessions of turns (a conversation's): its samples carry `turn`, and its figures by turn are made of them. */
  sessions?: { turns: number; thinkSeconds: number };
}

/** What the level runner knows when it prepares a driver's spec: after the warm-up. */
export interface LevelFacts {
  /** The level's number in its sweep, 1-based, as its run document records it (`levels[].level`): each level draws its own schedule. */
  level: number;
  /** How long a request is expected to take, ms: the previous level's e2e p50, else the warm-up's, else 0. */
  expectedRequestMs: number;
}

/** One load kind's sends: everything the sweep does differently for it, and nothing else. */
export interface LevelDriver<L extends { kind: string } = { kind: string }, S extends DriveSpec = DriveSpec> {
  /** Workers of the unmeasured warm-up (a closed loop: up to N; an open loop: one, its level number is no count of users). */
  warmupWorkers(load: L, warmupRequests: number): number;
  /** The level's spec once the warm-up is over. */
  prepare(load: L, facts: LevelFacts): S;
  /** Runs `spec`'s sends on `loop` until the counters or the level's end run out, then waits for the last to end. */
  drive(spec: S, loop: DriveLoop): Promise<DriveRecord>;
  /** The same load split into `parts` specs that together send it (one per thread); `parts` >= 1. */
  split(spec: S, parts: number): S[];
  /** What the summary records of the load, from the level's (unsplit) spec, its measured window and the record. */
  describe(spec: S, record: DriveRecord, window: LevelWindow): LoadFigures;
}
