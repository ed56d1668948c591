/**
 * The model side of "held against the real kernel": given a machine's
 * parameters (kernel release, the device's `read_ahead_kb` and
 * `max_sectors_kb`, whether the file system uses large folios, and timings
 * measured on the machine), play the same patterns through the `linux` model
 * that `measureKernelReadahead` plays on the real file. Browser-safe, so a
 * committed measurement (a fixture) can be checked anywhere.
 */
import { ReadaheadError } from "../errors.js";
import { type LinuxReadLoop, type LinuxVersion, linuxReadahead } from "../linux.js";
import { PageCache } from "../page-cache.js";
import { type HarnessDevice, type ScanPattern, type ScanResult, simulateScan } from "../scan-harness.js";

/** Everything the model needs to stand in for one machine's kernel and device. */
export interface MachineParameters {
  /** `uname -r` of the machine. */
  kernelRelease: string;
  /** Rule set picked from the release. */
  version: LinuxVersion;
  /** Read loop picked from the release. */
  readLoop: LinuxReadLoop;
  /** Device `read_ahead_kb`. */
  readAheadKb: number;
  /** Device `max_sectors_kb`. */
  maxSectorsKb: number;
  /** Device `max_segments`. */
  maxSegments: number;
  /** File system type (ext4, xfs...). */
  fsType: string;
  /** Large folios in the file's page cache (from the release and file system). */
  largeFolios: boolean;
  /** CPU per 8 kB block in the reader loop (µs), measured with a cached file. */
  cpuUsPerBlock: number;
  /** Device timing measured on the machine. */
  device: Required<HarnessDevice>;
  /**
   * Thread wake-up latencies measured on the machine (µs; quantiles of a
   * futex ping-pong between two threads). A woken reader runs this late.
   */
  wakeupUs: number[];
  /** CPUs the reader threads share. */
  cpus: number;
  /** Test file size in 8 kB blocks. */
  fileBlocks: number;
}

/** Kernel line and read loop for a Linux release string such as "6.18.44-fc". */
export function linuxLineOfRelease(release: string): {
  /** Rule set. */
  version: LinuxVersion;
  /** Read loop. */
  readLoop: LinuxReadLoop;
} {
  const m = /^(\d+)\.(\d+)/.exec(release);
  if (m === null) {
    throw new ReadaheadError(
      "READAHEAD_UNKNOWN_VERSION",
      `Kernel release ${JSON.stringify(release)} does not start with a Linux version number.`,
    );
  }
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const v = major * 1000 + minor;
  return {
    version: v >= 6010 ? ">=6.10" : "<=6.9",
    readLoop: v >= 5012 ? "5.12" : "5.4",
  };
}

/**
 * Whether the page cache of a file on `fsType` uses large folios on kernel
 * `release`: XFS since 5.18, ext4 since 6.16 (the 6.18 trace in the README
 * shows order-2..9 folios on ext4), others not modelled.
 */
export function largeFoliosFor(fsType: string, release: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(release);
  const v = m === null ? 0 : Number(m[1]) * 1000 + Number(m[2]);
  if (fsType === "xfs") return v >= 5018;
  if (fsType === "ext4") return v >= 6016;
  return false;
}

function modelFor(params: MachineParameters, cache: PageCache) {
  return linuxReadahead(cache, {
    version: params.version,
    readLoop: params.readLoop,
    readAheadKb: params.readAheadKb,
    maxSectorsKb: params.maxSectorsKb,
    maxSegments: params.maxSegments,
    largeFolios: params.largeFolios,
  });
}

/**
 * Pages resident after each of `reads` sequential 8 kB reads from
 * `startBlock` on a cold file, with every I/O complete before the next read
 * (what `fincore` shows after each read in the real measurement).
 */
export function modelRamp(params: MachineParameters, startBlock: number, reads: number): number[] {
  const cache = new PageCache();
  const model = modelFor(params, cache);
  const of = model.open(1, { sizePages: params.fileBlocks * 2 });
  const out: number[] = [];
  let t = 0;
  const submit = () => t + 1;
  for (let i = 0; i < reads && startBlock + i < params.fileBlocks; i++) {
    let r = model.read(of, 2 * (startBlock + i), 2, t, submit);
    while (r.pending !== null) r = model.resume(r.pending, r.readyAtUs, submit);
    t += 1_000_000;
    out.push(cache.residentIn(1));
  }
  return out;
}

/** The pattern played through the model on the machine's parameters. */
export function modelPattern(params: MachineParameters, pattern: ScanPattern, seed = 1): ScanResult {
  return simulateScan(pattern, {
    seed,
    model: (cache) => modelFor(params, cache),
    blocks: params.fileBlocks,
    cpuUsPerBlock: params.cpuUsPerBlock,
    device: params.device,
    wakeupUs: params.wakeupUs,
    cpus: params.cpus,
  });
}
