/**
 * Progress bars (cli-progress), drawn on stderr when stdout and stderr are
 * terminals and the output is not JSON. While bars are drawn, the command's
 * own lines go through the bar container's `log`, which prints them above
 * the bars instead of through them.
 *
 * A long run (one whose estimated work is over the simulator's
 * PROGRESS_STEPS, a few seconds) also reports off a terminal, unless the
 * output is JSON: cli-progress's no-TTY mode writes the bar as a plain line
 * on stderr when it starts, every {@link OFF_TTY_EVERY_MS} and when it ends,
 * so a log or CI job shows that the run is alive and how far it is. stdout is then not a terminal the bars
 * share, so the command's lines keep going there directly.
 */
import cliProgress from "cli-progress";
import { type Ctx, progressOn } from "../context.js";

/** How often a long run's progress line is written off a terminal (our choice: often enough to show life, rare enough for a log). */
export const OFF_TTY_EVERY_MS = 2000;

/** Options of {@link Bars.start}. */
export interface BarsOptions {
  /** The run is expected to take more than a few seconds: report off a terminal too (not with --json). */
  long?: boolean;
}

/** A set of live bars, or a no-op when progress is off. */
export class Bars {
  private readonly multi: cliProgress.MultiBar | null;
  private readonly savedOut: Ctx["out"];
  private readonly offTerminal: boolean;

  private constructor(
    private readonly ctx: Ctx,
    format: string,
    options: BarsOptions,
  ) {
    this.savedOut = ctx.out;
    const onTerminal = progressOn(ctx);
    const offTerminal = !onTerminal && options.long === true && !ctx.json;
    this.offTerminal = offTerminal;
    if (!onTerminal && !offTerminal) {
      this.multi = null;
      return;
    }
    this.multi = new cliProgress.MultiBar(
      {
        format,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: true,
        stopOnComplete: false,
        barsize: 24,
        etaBuffer: 20,
        fps: 10,
        autopadding: true,
        noTTYOutput: offTerminal,
        notTTYSchedule: OFF_TTY_EVERY_MS,
      },
      offTerminal ? cliProgress.Presets.legacy : cliProgress.Presets.shades_classic,
    );
    if (offTerminal) return;
    const multi = this.multi;
    ctx.out = (line = "") => multi.log(`${line}\n`);
  }

  /** Starts bars with a cli-progress format (`{bar}`, `{value}`, `{total}` and payload fields). */
  static start(ctx: Ctx, format: string, options: BarsOptions = {}): Bars {
    return new Bars(ctx, format, options);
  }

  /** Whether bars are drawn (on a terminal, or a long run's lines off one). */
  get drawn(): boolean {
    return this.multi !== null;
  }

  /** Adds a bar; returns an updater (a no-op when progress is off). */
  add(
    total: number,
    payload: Record<string, string | number>,
  ): (value: number, payload?: Record<string, string | number>) => void {
    if (this.multi === null) return () => {};
    const bar = this.multi.create(Math.max(1, total), 0, payload);
    // Off a terminal, a line at the start: a run that ends before the first scheduled line still
    // says it ran, whatever the machine's speed.
    if (this.offTerminal) this.multi.update();
    return (value, p) => bar.update(Math.min(value, Math.max(1, total)), p);
  }

  /** Removes the bars and gives the command its stdout back. */
  stop(): void {
    // Off a terminal, a last line with where the run ended.
    if (this.offTerminal) this.multi?.update();
    this.multi?.stop();
    this.ctx.out = this.savedOut;
  }
}
