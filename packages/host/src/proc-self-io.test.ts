import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processReadBytes } from "./proc-self-io.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-proc-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("processReadBytes", () => {
  it("reads the read_bytes line, not rchar or cancelled_write_bytes", () => {
    const f = join(dir, "io");
    writeFileSync(
      f,
      "rchar: 999\nwchar: 5\nsyscr: 3\nsyscw: 1\nread_bytes: 40960\nwrite_bytes: 0\ncancelled_write_bytes: 7\n",
    );
    expect(processReadBytes(f)).toBe(40960);
  });

  it("is null for a missing file or one without read_bytes (no task I/O accounting)", () => {
    expect(processReadBytes(join(dir, "no-such-io"))).toBeNull();
    const f = join(dir, "io-without");
    writeFileSync(f, "rchar: 999\nwchar: 5\n");
    expect(processReadBytes(f)).toBeNull();
  });

  it.runIf(process.platform === "linux")("counts this process's device reads", () => {
    expect(processReadBytes()).toBeGreaterThanOrEqual(0);
    expect(processReadBytes("/no/such/io")).toBeNull();
  });
});
