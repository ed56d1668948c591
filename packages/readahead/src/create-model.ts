/**
 * One entry point for every model, and the OS names the simulator and the CLI
 * offer (`linux-5.4`, `linux-6.10`, `freebsd-12`, `freebsd-13`, `windows`,
 * `none`). Each name is a preset of the model's own options, which the caller
 * may still override (a machine's `read_ahead_kb`, say).
 */
import { type DirectIoOptions, directIo } from "./direct-io.js";
import { ReadaheadError } from "./errors.js";
import { type FreeBsdUfsOptions, freebsdUfsReadahead } from "./freebsd-ufs.js";
import { type LinuxOptions, linuxReadahead } from "./linux.js";
import type { ReadaheadModel } from "./model.js";
import type { PageCache } from "./page-cache.js";
import { type WindowsOptions, windowsReadahead } from "./windows.js";

/** A model and its options. */
export type ReadaheadModelSpec = LinuxModelSpec | FreeBsdModelSpec | WindowsModelSpec | DirectIoModelSpec;

/** The `linux` model and its options. */
export interface LinuxModelSpec extends LinuxOptions {
  /** Model family. */
  model: "linux";
}
/** The `freebsd-ufs` model and its options. */
export interface FreeBsdModelSpec extends FreeBsdUfsOptions {
  /** Model family. */
  model: "freebsd-ufs";
}
/** The `windows` model and its options. */
export interface WindowsModelSpec extends WindowsOptions {
  /** Model family. */
  model: "windows";
}
/** The `none` model (direct I/O) and its options. */
export interface DirectIoModelSpec extends DirectIoOptions {
  /** Model family. */
  model: "none";
}

/** Names accepted by {@link createReadaheadModel} as a preset. */
export type OsPresetName =
  | "linux-5.4"
  | "linux-6.1"
  | "linux-6.10"
  | "freebsd-12"
  | "freebsd-13"
  | "windows"
  | "none";

/** OS names with a preset (each a {@link ReadaheadModelSpec}). */
export const OS_PRESETS: Readonly<Record<OsPresetName, ReadaheadModelSpec>> = {
  /** Linux 5.4: ≤6.9 rules, 5.4 read loop, order-0 pages (apps/docs/src/reference/linux-readahead-window.md, L54). */
  "linux-5.4": { model: "linux", version: "<=6.9", readLoop: "5.4" },
  /** Linux 6.1-6.9: ≤6.9 rules, filemap_read loop (Debian 12's kernel). */
  "linux-6.1": { model: "linux", version: "<=6.9", readLoop: "5.12" },
  /** Linux ≥6.10 as measured on 6.18: split sync/async paths, large folios. */
  "linux-6.10": { model: "linux", version: ">=6.10", readLoop: "5.12", largeFolios: true },
  /** FreeBSD ≤12: classic clustering, MAXPHYS 128 KiB. */
  "freebsd-12": { model: "freebsd-ufs", version: "<=12" },
  /** FreeBSD ≥13: page-cache fast path, maxphys 1 MiB. */
  "freebsd-13": { model: "freebsd-ufs", version: ">=13" },
  /** Windows Cache Manager, neither flag (PostgreSQL's case); low confidence. */
  windows: { model: "windows" },
  /** Direct I/O. */
  none: { model: "none" },
};

/**
 * Builds a model over `cache` from a spec or an OS preset name (with optional overrides).
 *
 * @example
 * ```ts
 * import { PageCache, createReadaheadModel } from "@scanlab/readahead";
 * const cache = new PageCache({ capacityPages: 4 << 18 });
 * const linux = createReadaheadModel(cache, "linux-6.10", { readAheadKb: 8192, maxSectorsKb: 4096 });
 * console.log(linux.label); // linux >=6.10 (read loop 5.12, read_ahead_kb 8192, max_sectors_kb 4096, large folios up to order 9)
 * ```
 */
export function createReadaheadModel(
  cache: PageCache,
  spec: ReadaheadModelSpec | OsPresetName,
  overrides: Record<string, unknown> = {},
): ReadaheadModel {
  let full: ReadaheadModelSpec;
  if (typeof spec === "string") {
    const preset = (OS_PRESETS as Record<string, ReadaheadModelSpec>)[spec];
    if (preset === undefined) {
      throw new ReadaheadError(
        "READAHEAD_UNKNOWN_MODEL",
        `Readahead model ${JSON.stringify(spec)} is unknown; use one of ${Object.keys(OS_PRESETS).join(", ")}.`,
      );
    }
    full = { ...preset, ...overrides } as ReadaheadModelSpec;
  } else {
    full = { ...spec, ...overrides } as ReadaheadModelSpec;
  }
  const { model, ...options } = full;
  switch (model) {
    case "linux":
      return linuxReadahead(cache, options as LinuxOptions);
    case "freebsd-ufs":
      return freebsdUfsReadahead(cache, options as FreeBsdUfsOptions);
    case "windows":
      return windowsReadahead(cache, options as WindowsOptions);
    case "none":
      return directIo(cache, options as DirectIoOptions);
    default:
      throw new ReadaheadError(
        "READAHEAD_UNKNOWN_MODEL",
        `Readahead model ${JSON.stringify(model)} is unknown; use linux, freebsd-ufs, windows or none.`,
      );
  }
}
