/**
 * Colour on a terminal only. Colours are on when stdout is a TTY (or
 * FORCE_COLOR is set) and NO_COLOR is not set (https://no-color.org: any
 * value, even empty, turns colour off).
 */
import pc from "picocolors";

/** The colour functions the CLI uses (identity functions when colour is off). */
export type Colours = ReturnType<typeof pc.createColors>;

/** Whether colour is on for this process, from NO_COLOR, FORCE_COLOR and whether stdout is a terminal. */
export function colourEnabled(
  env: NodeJS.ProcessEnv = process.env,
  isTTY = process.stdout.isTTY === true,
): boolean {
  if ("NO_COLOR" in env) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTTY && env.TERM !== "dumb";
}

/** Colour functions, on or off. */
export function colours(enabled: boolean): Colours {
  return pc.createColors(enabled);
}
