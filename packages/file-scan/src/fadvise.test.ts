/**
 * posix_fadvise(WILLNEED) through koffi: bound on Linux, and where it cannot
 * be had, one sentence saying why instead of a call that pretends.
 */
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadFadvise } from "./fadvise.js";

const platform = Object.getOwnPropertyDescriptor(process, "platform")!;
afterEach(() => Object.defineProperty(process, "platform", platform));

describe("loadFadvise", () => {
  it.runIf(process.platform === "linux")(
    "binds libc's posix_fadvise: 0 for an open file, EBADF for a closed descriptor",
    () => {
      const f = loadFadvise();
      if (!f.ok) throw new Error(f.reason);
      const fd = openSync(fileURLToPath(import.meta.url), "r");
      try {
        expect(f.willNeed(fd, 0, 8192)).toBe(0);
      } finally {
        closeSync(fd);
      }
      // The descriptor is closed now: the kernel's answer comes back as the error number (EBADF is 9 on Linux).
      expect(f.willNeed(fd, 0, 8192)).toBe(9);
    },
  );

  it("elsewhere says in one sentence that advice is not given", () => {
    Object.defineProperty(process, "platform", { ...platform, value: "darwin" });
    const f = loadFadvise();
    expect(f.ok).toBe(false);
    if (!f.ok)
      expect(f.reason).toBe(
        "posix_fadvise advice is only given on Linux (this is darwin); the scan read without it.",
      );
  });
});
