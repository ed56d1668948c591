/**
 * The event loop: entities (scanning processes, client loops) that the queue
 * wakes at their next time. An entity's `fire` does what happens at that
 * instant (a block claim, a read the OS must decide on), advances over what
 * needs no decision, and asks to be woken again.
 */
import { EventQueue } from "./event-queue.js";

/** Something the event loop can wake. */
export interface Entity {
  fire(nowUs: number): void;
}

/** The simulation clock and its entities. */
export class Scheduler {
  private readonly queue = new EventQueue(128);
  private readonly entities: Entity[] = [];
  /** Current simulated time (never decreases). */
  nowUs = 0;
  /** Events processed, for the benchmark. */
  events = 0;

  /** Registers an entity and returns its id. */
  add(entity: Entity): number {
    this.entities.push(entity);
    return this.entities.length - 1;
  }

  /** Wakes entity `id` at `timeUs` (never earlier than now). */
  schedule(id: number, timeUs: number): void {
    this.queue.push(timeUs < this.nowUs ? this.nowUs : timeUs, id);
  }

  /**
   * True when nothing else is scheduled before `timeUs`: an entity may then
   * carry on to `timeUs` within its current wake-up instead of going through
   * the queue (nobody could act in between, so the order is unchanged).
   */
  canContinue(timeUs: number): boolean {
    return timeUs < this.queue.peekTime() && timeUs <= this.untilUs;
  }

  /** Time of the next scheduled event (Infinity when none, or the run's end). */
  nextEventUs(): number {
    const t = this.queue.peekTime();
    return t < this.untilUs ? t : this.untilUs;
  }

  /** Moves the clock forward within a wake-up (see canContinue). */
  advanceTo(timeUs: number): void {
    if (timeUs > this.nowUs) this.nowUs = timeUs;
    // A lone entity may carry on for a whole scan in one wake-up: it is polled here too.
    if ((++this.steps & 0x3ff) === 0 && this.onPoll !== null) this.onPoll(this.nowUs);
  }

  /** Wake-ups plus in-wake-up steps, for the poll's rhythm. */
  private steps = 0;

  private untilUs = Number.POSITIVE_INFINITY;

  /**
   * Called every 1024 wake-ups or in-wake-up steps, always between two steps
   * of one entity, with the current time (the warp's poll, speedups/warp.ts). 1024 is
   * an engine choice of ours: a few microseconds of wall time apart, far
   * below a 256 MB measurement window, and cheap on the hot path (a mask).
   */
  onPoll: ((nowUs: number) => void) | null = null;

  /** Simulated time left before the run's end (`untilUs`), from `nowUs`. */
  remainingUs(nowUs: number): number {
    return this.untilUs - nowUs;
  }

  /**
   * Simulated time credited without being simulated (the warp's cuts,
   * speedups/warp.ts), µs. The loop's own clock does not include it; reported
   * times do ({@link Scheduler.reportedUs}).
   */
  skippedUs = 0;

  /** The warp credited `us` of simulated time without simulating it: the run's end comes that much earlier. */
  skip(us: number): void {
    this.skippedUs += us;
    this.untilUs -= us;
  }

  /** Reported simulated time at loop time `loopUs`: the loop's clock plus what was skipped so far. */
  reportedUs(loopUs: number): number {
    return loopUs + this.skippedUs;
  }

  /** Wake-ups plus in-wake-up steps so far: the unit of the simulator's work (work-estimate.ts). */
  get stepCount(): number {
    return this.steps;
  }

  /**
   * Ends the run at the current instant (the caller's stop request, from a
   * poll): the run's end moves to now, so no entity carries on past it
   * within its wake-up (canContinue) and the loop takes no later event; the
   * poll is not called again. Between two steps, so every figure is that of
   * a consistent machine.
   */
  stop(): void {
    this.untilUs = this.nowUs;
    this.onPoll = null;
  }

  /** Runs until nothing is scheduled, the clock passes `untilUs`, or {@link Scheduler.stop}. */
  run(untilUs = Number.POSITIVE_INFINITY): void {
    const q = this.queue;
    const entities = this.entities;
    this.untilUs = untilUs;
    while (q.size > 0) {
      if (q.peekTime() > this.untilUs) break;
      const id = q.pop();
      const t = q.lastTime;
      if (t < this.nowUs) throw new Error(`time went backwards: ${t} < ${this.nowUs}`);
      this.nowUs = t;
      this.events++;
      entities[id]!.fire(t);
      if ((++this.steps & 0x3ff) === 0 && this.onPoll !== null) this.onPoll(this.nowUs);
    }
  }
}
