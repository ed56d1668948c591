/**
 * The scan worker limit: 16 per core, and 768 MiB of ~9 MiB threads, on both
 * sides of each bound, and scanFile refusing before it starts a thread (a
 * scan at the limit runs in the CLI's end-to-end tests, against the built
 * workers).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scanFile } from "./scan-file.js";
import {
  checkWorkerCount,
  maxScanWorkers,
  SCAN_WORKERS_MEMORY_BYTES,
  WORKER_THREAD_BYTES,
  WORKERS_PER_CORE,
} from "./worker-limit.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-worker-limit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("maxScanWorkers", () => {
  const byMemory = Math.floor(SCAN_WORKERS_MEMORY_BYTES / WORKER_THREAD_BYTES);

  it("is 16 per core while the threads fit in memory, then the memory bound", () => {
    expect(maxScanWorkers(1)).toBe(WORKERS_PER_CORE);
    expect(maxScanWorkers(2)).toBe(2 * WORKERS_PER_CORE);
    expect(maxScanWorkers(64)).toBe(byMemory);
    expect(byMemory * WORKER_THREAD_BYTES).toBeLessThanOrEqual(SCAN_WORKERS_MEMORY_BYTES);
  });

  it("checkWorkerCount takes the limit and refuses one more, naming cores and memory", () => {
    expect(() => checkWorkerCount(32, 2)).not.toThrow();
    expect(() => checkWorkerCount(33, 2)).toThrow(
      /33 workers is over this machine's limit of 32 scan workers \(16 per core on 2 cores, and 768 MiB/,
    );
    expect(() => checkWorkerCount(byMemory, 64)).not.toThrow();
    expect(() => checkWorkerCount(byMemory + 1, 64)).toThrow(/limit of 85 scan workers/);
  });

  it("scanFile refuses a count over the limit before starting any thread", async () => {
    const file = join(dir, "f.bin");
    writeFileSync(file, Buffer.alloc(8192 * 4));
    await expect(scanFile(file, { workers: maxScanWorkers() + 1 })).rejects.toMatchObject({
      code: "FILESCAN_TOO_MANY_WORKERS",
      userError: true,
    });
  });
});
