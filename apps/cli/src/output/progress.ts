/**
 * Progress bars (cli-progress), drawn on stderr only when stdout and stderr
 * are terminals and the output is not JSON. While bars are drawn, the
 * command's own lines go through the bar container's `log`, which prints them
 * above the bars instead of through them.
 */
import cliProgress from "cli-progress";
import { type Ctx, progressOn } from "../context.js";

/** A set of live bars, or a no-op when progress is off. */
export class Bars {
  private readonly multi: cliProgress.MultiBar | null;
  private readonly savedOut: Ctx["out"];

  private constructor(
    private readonly ctx: Ctx,
    format: string,
  ) {
    this.savedOut = ctx.out;
    if (!progressOn(ctx)) {
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
      },
      cliProgress.Presets.shades_classic,
    );
    const multi = this.multi;
    ctx.out = (line = "") => multi.log(`${line}\n`);
  }

  /** Starts bars with a cli-progress format (`{bar}`, `{value}`, `{total}` and payload fields). */
  static start(ctx: Ctx, format: string): Bars {
    return new Bars(ctx, format);
  }

  /** Adds a bar; returns an updater (a no-op when progress is off). */
  add(
    total: number,
    payload: Record<string, string | number>,
  ): (value: number, payload?: Record<string, string | number>) => void {
    if (this.multi === null) return () => {};
    const bar = this.multi.create(Math.max(1, total), 0, payload);
    return (value, p) => bar.update(Math.min(value, Math.max(1, total)), p);
  }

  /** Removes the bars and gives the command its stdout back. */
  stop(): void {
    this.multi?.stop();
    this.ctx.out = this.savedOut;
  }
}
