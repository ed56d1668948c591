/**
 * `scan` fits 80 columns (COLUMNS=80, off a terminal) on a real temporary
 * file: one run's table is drawn down (a line per column), two runs with a
 * device's prediction beside each are split into tables led by the policy,
 * and no column is dropped.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";
import { fitted80, rowCells } from "./terminal-lines.js";

const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const dir = mkdtempSync(join(base, "scanlab-cli-width-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "table.dat");
writeFileSync(file, Buffer.alloc(8 * 1024 * 1024, 1));

describe("scan at 80 columns", () => {
  it("one run: every line fits, each column on a line of its own", async () => {
    const r = await runBin(["scan", file, "--workers", "2"], { env: { COLUMNS: "80" } });
    expect(r.code, r.stderr).toBe(0);
    const lines = fitted80(r.stdout);
    for (const name of ["policy", "cache", "time", "MiB/s", "read kB", "exact cover"])
      expect(rowCells(lines, name), name).toHaveLength(1);
    expect(rowCells(lines, "w0")).toHaveLength(5);
  });

  it("two runs with a device's predictions: split tables, every column of each run", async () => {
    const args = [
      "scan",
      file,
      "--workers",
      "2",
      "--compare",
      "pg11,munro2020",
      "--device",
      "intel-ssd-320-120gb",
    ];
    const [text, wide] = await Promise.all([
      runBin(args, { env: { COLUMNS: "80" } }),
      runBin(args, { env: { COLUMNS: "250" } }),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(wide.code, wide.stderr).toBe(0);
    const lines = fitted80(text.stdout);
    expect(lines.filter((l) => l.startsWith("┌")).length).toBeGreaterThan(1);
    // As many cells a run as on one wide line: ten measured columns and three predicted, after the policy.
    for (const policy of ["pg11", "munro2020"]) {
      const across = rowCells(wide.stdout.split("\n"), policy);
      expect(across).toHaveLength(12);
      expect(rowCells(lines, policy)).toHaveLength(across.length);
    }
  });
});
