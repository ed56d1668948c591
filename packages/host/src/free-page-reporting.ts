/**
 * Freed memory that goes back to the hypervisor, and what a cold read pays
 * for it.
 *
 * Problem. On a virtual machine whose balloon device reports free pages
 * (Linux free page reporting, mm/page_reporting.c, driven by virtio_balloon's
 * VIRTIO_BALLOON_F_REPORTING), memory that stays free is handed to the host,
 * which discards it. A page-cache page later allocated from such memory is
 * backed again only when it is first touched, by a fault the host serves
 * while the guest CPU waits: a cold read then costs the reading CPU several
 * microseconds more per 4 KiB page than on memory that never left.
 *
 * Insight. A table that is cold in production was evicted long ago, so the
 * memory its next scan reads into has been reported. An experiment that
 * evicts a file and reads it at once reuses the pages it has just freed,
 * still backed, and measures a cold read that is cheaper than a real one,
 * by an amount that varies with how much was reported in between.
 *
 * Choices.
 * - Reporting is seen as both the kernel's page_reporting parameters in
 *   /sys/module and a balloon's reporting virtqueue ("reporting_vq", the
 *   name virtio_balloon gives it) in /proc/interrupts. A balloon whose
 *   queues share one interrupt is not seen, and gets no pause.
 * - Where it is seen, {@link settleFreedMemory} waits
 *   {@link REPORTING_SETTLE_MS}: the kernel reports free memory
 *   PAGE_REPORTING_DELAY (2 s) after it is freed, then in passes.
 *   Elsewhere it returns at once: freed memory stays backed.
 *
 * Interface: `freePageReporting(paths?)`, `settleFreedMemory(signal?)`.
 */
import { existsSync, readFileSync } from "node:fs";

/**
 * How long a caller waits after an eviction for the freed memory to be
 * reported: PAGE_REPORTING_DELAY (2 s, mm/page_reporting.c) and one more
 * second for the reporting passes (our choice).
 */
export const REPORTING_SETTLE_MS = 3000;

/** Where {@link freePageReporting} looks; tests point it at fixtures. */
export interface ReportingPaths {
  /** Parameters of mm/page_reporting.c (default `/sys/module/page_reporting/parameters`). */
  readonly parameters: string;
  /** The interrupt table (default `/proc/interrupts`). */
  readonly interrupts: string;
}

const DEFAULT_PATHS: ReportingPaths = {
  parameters: "/sys/module/page_reporting/parameters",
  interrupts: "/proc/interrupts",
};

/** Whether this machine hands freed memory to its hypervisor, and how that was seen. */
export interface FreePageReporting {
  /** True when the kernel reports free pages and a device receives them. */
  readonly active: boolean;
  /** What was found, in words. */
  readonly why: string;
}

/**
 * Whether freed memory is reported to the hypervisor here (see the header).
 *
 * @example
 * ```ts
 * import { freePageReporting } from "@scanlab/host";
 * console.log(freePageReporting().why);
 * ```
 */
export function freePageReporting(paths: ReportingPaths = DEFAULT_PATHS): FreePageReporting {
  if (!existsSync(`${paths.parameters}/page_reporting_order`)) {
    return { active: false, why: "the kernel has no free page reporting (no page_reporting parameters)" };
  }
  let interrupts: string;
  try {
    interrupts = readFileSync(paths.interrupts, "utf8");
  } catch {
    return { active: false, why: `${paths.interrupts} is not readable` };
  }
  if (!/\breporting_vq\b/.test(interrupts)) {
    return {
      active: false,
      why: "the kernel can report free pages, but no balloon's reporting queue was found",
    };
  }
  return {
    active: true,
    why: "free pages are reported to the hypervisor (page_reporting and a balloon's reporting_vq)",
  };
}

/**
 * Waits {@link REPORTING_SETTLE_MS} after an eviction where freed memory is
 * reported, so that a cold read that follows reads into memory as a table
 * cold in production does; returns at once elsewhere. Resolves to whether
 * it waited. An aborted `signal` ends the wait early.
 */
export async function settleFreedMemory(
  signal?: AbortSignal,
  reporting: FreePageReporting = freePageReporting(),
): Promise<boolean> {
  if (!reporting.active || signal?.aborted === true) return false;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, REPORTING_SETTLE_MS);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
  return true;
}
