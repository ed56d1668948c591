/**
 * `reproduce --json` is deterministic for a seed and matches the committed
 * golden files. The full run takes about half a minute on a 2-core machine,
 * so the golden runs are quick subsets chosen with --rows:
 *
 * - T4, the three Q2 rows (int table), with calibration: small in-memory scans.
 * - T7 (c), random 1% and sequential 10% at eic 0 and 1, without calibration.
 *
 * Two runs must print byte-identical JSON; the golden files are compared
 * field by field with numbers to 1e-9 relative, so a change in the engine's
 * floating-point summation order does not count as a model change.
 *
 * Regenerate the golden files with `UPDATE_GOLDEN=1 npx vitest run src/e2e/reproduce.test.ts`
 * after a deliberate model change, and say why in the commit.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PKG, runBin } from "./run-bin.js";
import { afterCpu, stopWhenBusy } from "./signal-harness.js";

const GOLDEN = join(PKG, "test", "fixtures", "golden");
const update = process.env.UPDATE_GOLDEN === "1";

/** Deep equality, with numbers equal to 1e-9 relative. */
function expectClose(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === "number" && typeof actual === "number") {
    const scale = Math.max(Math.abs(expected), Math.abs(actual), 1e-300);
    expect(Math.abs(actual - expected) / scale, `${path}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      1e-9,
    );
    return;
  }
  if (typeof expected !== "object" || expected === null || typeof actual !== "object" || actual === null) {
    expect(actual, path).toEqual(expected);
    return;
  }
  expect(Object.keys(actual).sort(), path).toEqual(Object.keys(expected).sort());
  for (const k of Object.keys(expected)) {
    expectClose(
      (actual as Record<string, unknown>)[k],
      (expected as Record<string, unknown>)[k],
      `${path}.${k}`,
    );
  }
}

const subsets: [string, string[]][] = [
  [
    "reproduce-T4-q2.json",
    ["reproduce", "T4", "--rows", "int-spinlock,int-atomics,int-batch10", "--seed", "7", "--json"],
  ],
  [
    "reproduce-T7-c-quick.json",
    [
      "reproduce",
      "T7",
      "--rows",
      "c-ssd-random-1-0,c-ssd-random-1-1,c-ssd-sequential-10-0,c-ssd-sequential-10-1",
      "--no-calibration",
      "--seed",
      "7",
      "--json",
    ],
  ],
];

describe("reproduce --json", () => {
  for (const [golden, args] of subsets) {
    it(`${args.slice(1, 2).join(" ")} is deterministic and matches ${golden}`, async () => {
      const a = await runBin(args);
      const b = await runBin(args);
      expect(a.stderr).toBe("");
      expect(a.code).toBe(0);
      expect(b.stdout).toBe(a.stdout);
      const path = join(GOLDEN, golden);
      if (update) writeFileSync(path, a.stdout);
      expect(existsSync(path), `${path} is missing: run with UPDATE_GOLDEN=1 once`).toBe(true);
      // Byte-identical run to run (above); against the golden file, numbers may differ in
      // the last digits when the engine reorders floating-point sums (1e-9 relative), nothing else.
      expectClose(JSON.parse(a.stdout), JSON.parse(readFileSync(path, "utf8")), "$");
    });
  }

  it("carries the published figures of apps/docs/src/reference/experiments.md and what the rows say", async () => {
    const r = await runBin(subsets[0]![1]);
    const json = JSON.parse(r.stdout).result;
    const t4 = json.targets[0];
    // apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes, Q2 runs: 5 854 / 5 926 / 5 859 ms (spinlock), 5 826 / 5 849 / 5 816 (atomics), 5 789 / 5 837 / 5 821 (batch-10): means.
    const pub = Object.fromEntries(
      t4.rows.map((x: { id: string; published: { timeS: number } }) => [x.id, x.published.timeS]),
    );
    expect(pub["int-spinlock"]).toBeCloseTo((5.854 + 5.926 + 5.859) / 3, 2);
    expect(pub["int-atomics"]).toBeCloseTo((5.826 + 5.849 + 5.816) / 3, 2);
    expect(pub["int-batch10"]).toBeCloseTo((5.789 + 5.837 + 5.821) / 3, 2);
    expect(json.seed).toBe(7);
    expect(json.interrupted).toBe(false);
    expect(json.summary.statements).toBe(t4.statements.length);
  });

  it("T7 (c): prefetching one page ahead helps scattered pages and hurts sequential ones (apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds)", async () => {
    const r = await runBin(subsets[1]![1]);
    const rows = Object.fromEntries(
      JSON.parse(r.stdout).result.targets[0].rows.map((x: { id: string; simulated: { timeS: number } }) => [
        x.id,
        x.simulated.timeS,
      ]),
    );
    expect(rows["c-ssd-sequential-10-1"]).toBeGreaterThan(rows["c-ssd-sequential-10-0"]);
    expect(rows["c-ssd-random-1-1"]).toBeLessThan(rows["c-ssd-random-1-0"]);
  });

  it("Ctrl-C (SIGINT) stops a long reproduction cleanly: exit 130, no partial figures", async () => {
    // T7's 380 rows take half a minute on one thread; T4's are quick. The signal goes once the
    // command has used 3 s of CPU (its handlers are installed and simulations are running), not
    // after 3 s of wall time, which a loaded machine may spend starting Node.
    const signalled = { at: 0 };
    const r = await stopWhenBusy(
      ["reproduce", "T4", "T7", "--no-calibration", "--jobs", "1", "--json"],
      "SIGINT",
      (pid) => {
        const busy = afterCpu(3000)(pid);
        if (busy) signalled.at = performance.now();
        return busy;
      },
    );
    const signalledAt = signalled.at;
    // Every running simulation polls the stop flag: the run ends soon after the signal, not after
    // the minutes of CPU the remaining rows would take on a loaded machine.
    expect(performance.now() - signalledAt).toBeLessThan(120_000);
    expect(r.code).toBe(130);
    const json = JSON.parse(r.stdout).result;
    expect(json.interrupted).toBe(true);
    const t7 = json.targets.find((t: { id: string }) => t.id === "T7");
    if (t7 !== undefined) {
      expect(t7.interrupted).toBe(true);
      expect(t7.rows.length).toBeLessThan(380);
      expect(t7.ratios).toEqual([]);
      expect(t7.statements).toEqual([]);
    }
    const t4 = json.targets.find((t: { id: string }) => t.id === "T4");
    if (t4 !== undefined && !t4.interrupted) expect(t4.rows).toHaveLength(6);
  }, 600_000);

  it("writes SVG charts (PNG too with --png) and a self-contained HTML report with --report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scanlab-report-"));
    try {
      const r = await runBin([
        "reproduce",
        "T4",
        "--rows",
        "int-spinlock,int-atomics,int-batch10",
        "--report",
        dir,
        "--png",
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${dir}/report.html`);
      const png = readFileSync(join(dir, "T4-rows-timeS.png"));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(readFileSync(join(dir, "T4-ratios.svg"), "utf8")).toMatch(/^<svg/);
      const html = readFileSync(join(dir, "report.html"), "utf8");
      expect(html).toContain("<svg");
      expect(html).toContain("Must reproduce");
      // Self-contained: no scripts, style sheets, images or fonts fetched from anywhere.
      expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
      // report.json is the `reproduce --json` document.
      const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
      expect(report.command).toBe("reproduce");
      expect(report.result.targets[0].id).toBe("T4");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
