/**
 * Setting a block device's read_ahead_kb for some cells, and always putting
 * it back.
 *
 * Problem. Kernel readahead is the mechanism the seq scan cells exercise,
 * and read_ahead_kb is its main knob; but it is a machine-wide setting of the
 * device (/sys/block/DEV/queue/read_ahead_kb, writable by root only) that
 * other programs depend on. A lab run that changes it and dies leaves every
 * other program on the machine with the wrong readahead.
 *
 * Choices.
 * - The original value is read once, before any change; `restore()` writes it
 *   back and is called in the runner's `finally`, and a process `exit` hook
 *   does the same if the process ends another way (a second Ctrl-C calls
 *   process.exit). Writing an unchanged value is skipped.
 * - Permission is checked up front by opening the file for writing without
 *   writing anything: a refusal is a sentence the plan prints beside the cells
 *   it leaves out (cells.ts), not an error halfway through.
 * - The queue directory is the device's own when it has one (a disk, a
 *   device-mapper or md device), else its whole disk's (a partition shares
 *   its disk's queue): `@scanlab/host`'s `blockQueueLimits` finds it.
 */
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";

/** The read_ahead_kb file of a device, its current value and whether it may be written. */
export interface ReadAheadControl {
  /** Path of the sysfs file. */
  readonly path: string;
  /** Value when the run started. */
  readonly originalKb: number;
  /** Why it cannot be changed, or null when it can. */
  readonly refusal: string | null;
  /** Sets read_ahead_kb (no-op when already at that value). */
  set(kb: number): void;
  /** Writes the original value back and keeps the control usable. */
  reset(): void;
  /** Writes the original value back and drops the exit hook (idempotent): call it when done. */
  restore(): void;
}

/** Opens a control over `path`; the exit hook restores the original value if the process ends first. */
export function readAheadControl(path: string): ReadAheadControl {
  const originalKb = Number(readFileSync(path, "utf8").trim());
  let refusal: string | null = null;
  try {
    closeSync(openSync(path, "r+"));
  } catch (e) {
    const code = (e as { code?: string }).code ?? "error";
    refusal = `read_ahead_kb cannot be changed (${path}: ${code}; it needs root and a writable /sys), so cells at another read_ahead_kb are left out.`;
  }
  let current = originalKb;
  const write = (kb: number) => {
    if (kb === current) return;
    writeFileSync(path, `${kb}\n`);
    current = kb;
  };
  const restore = () => {
    try {
      write(originalKb);
    } catch {
      // Nothing else to try; the hook must not throw during exit.
    }
  };
  process.on("exit", restore);
  return {
    path,
    originalKb,
    refusal,
    set(kb) {
      if (refusal !== null) throw new Error(refusal);
      write(kb);
    },
    reset() {
      restore();
    },
    restore() {
      restore();
      process.removeListener("exit", restore);
    },
  };
}
