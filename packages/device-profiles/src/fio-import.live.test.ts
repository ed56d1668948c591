/**
 * fio's own reading of block size strings, from the fio installed here (a
 * real fio run reads a 1 MiB file): the importer must read `bs` the way fio
 * does. Skipped with the reason when fio is missing, unless
 * SCANLAB_REQUIRE_LIVE=1 (CI), where it fails.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseFioSize } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { fioReadMeasurements } from "./fio-import.js";

describe("fio sizes, live", () => {
  it("agrees with the fio installed here on what a block size string means", (ctx) => {
    const requireLive = process.env.SCANLAB_REQUIRE_LIVE === "1";
    let version: string;
    try {
      version = execFileSync("fio", ["--version"], { encoding: "utf8" }).trim();
    } catch {
      if (requireLive) throw new Error("SCANLAB_REQUIRE_LIVE=1 but fio is not installed");
      console.log("skipped: fio is not installed");
      return ctx.skip("fio is not installed");
    }
    const dir = mkdtempSync(join(tmpdir(), "scanlab-fio-size-"));
    try {
      const file = join(dir, "f.bin");
      writeFileSync(file, Buffer.alloc(1024 * 1024));
      for (const [bs, kbBase] of [
        ["4k", "1024"],
        ["4KiB", "1024"],
        ["8KiB", "1000"],
        ["4k", "1000"],
      ] as const) {
        const out = execFileSync(
          "fio",
          [
            "--name=size",
            `--filename=${file}`,
            "--size=1m",
            `--kb_base=${kbBase}`, // before bs: fio applies kb_base to the options parsed after it
            `--bs=${bs}`,
            "--rw=read",
            "--readonly",
            "--output-format=json",
          ],
          { encoding: "utf8" },
        );
        const json = JSON.parse(out);
        const r = json.jobs[0].read;
        const actualBlock = r.io_bytes / r.total_ios; // what fio actually read per I/O
        expect(parseFioSize(bs, Number(kbBase)), `${version} bs=${bs} kb_base=${kbBase}`).toBe(actualBlock);
        expect(fioReadMeasurements(json, "live.json")[0]!.blockBytes).toBe(actualBlock);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
