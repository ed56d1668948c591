/**
 * `scanlab lab` for real: SIGTERM in the middle leaves no PostgreSQL process,
 * no cluster directory, read_ahead_kb as it was, and a partial JSON document;
 * stdout on a full disk gives one sentence and exit 1 after a finished run,
 * with the cluster gone; too little free space is refused up front with one
 * sentence.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveGate } from "@scanlab/pg-harness";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";
import { stopWhenBusy } from "./signal-harness.js";

const gate = liveGate({ pgMajor: 15 });
if (!gate.available && !gate.required) console.warn(`live test skipped: ${gate.reason}`);
const root = typeof process.getuid === "function" && process.getuid() === 0;

const dir = mkdtempSync(join(tmpdir(), "scanlab-cli-lab-live-"));
chmodSync(dir, 0o755); // the server runs as an unprivileged user, who must enter it
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Starting a cluster and loading the quick tables takes a minute or more on a loaded 2-core machine.
const LIVE_TIMEOUT_MS = 600_000;

function processesMentioning(path: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes(path)) out.push(`${pid}: ${cmd.replaceAll("\0", " ")}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function readAheads(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of readdirSync("/sys/block")) {
    const p = `/sys/block/${d}/queue/read_ahead_kb`;
    if (existsSync(p)) out[d] = readFileSync(p, "utf8").trim();
  }
  return out;
}

describe.skipIf(!gate.available && !gate.required)("scanlab lab, live", () => {
  it(
    "stops cleanly on SIGTERM: exit 143, partial JSON, no server, no cluster, read_ahead_kb restored",
    async () => {
      if (!gate.available) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${gate.reason}`);
      const work = join(dir, "work");
      mkdirSync(work);
      const json = join(dir, "partial.json");
      const before = readAheads();
      // Busy once the cluster's server is up (its postmaster.pid exists in the work directory).
      const busy = () =>
        readdirSync(work).some(
          (d) => d.startsWith("scanlab-pg-") && existsSync(join(work, d, "data", "postmaster.pid")),
        );
      const r = await stopWhenBusy(
        ["lab", "--pg", "15", "--quick", "--work-dir", work, "--json", json],
        "SIGTERM",
        busy,
      );
      expect(r.code).toBe(143);
      expect(readdirSync(work)).toEqual([]);
      expect(processesMentioning(work)).toEqual([]);
      expect(r.orphans).toEqual([]);
      expect(readAheads()).toEqual(before);
      const envelope = JSON.parse(readFileSync(json, "utf8"));
      expect(envelope.command).toBe("lab");
      const doc = envelope.result;
      expect(doc.version).toBe(1);
      expect(doc.interrupted).toBe(true);
      expect(Array.isArray(doc.cells)).toBe(true);
    },
    LIVE_TIMEOUT_MS,
  );

  it.runIf(existsSync("/dev/full"))(
    "stdout on a full disk: one sentence, exit 1, and nothing left behind",
    async () => {
      if (!gate.available) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${gate.reason}`);
      const work = join(dir, "full");
      mkdirSync(work);
      const r = await runBin(
        ["lab", "--pg", "15", "--quick", "--cells", "seq narrow warm", "--work-dir", work],
        {
          stdoutFile: "/dev/full",
        },
      );
      expect(
        r.stderr.endsWith(
          "scanlab: cannot write to standard output: no space left on the device (ENOSPC).\n",
        ),
      ).toBe(true);
      expect(r.stderr.split("cannot write").length).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code).toBe(1);
      expect(readdirSync(work)).toEqual([]);
      expect(processesMentioning(work)).toEqual([]);
    },
    LIVE_TIMEOUT_MS,
  );

  it.skipIf(!root)(
    "refuses a work directory without room for the tables, before starting anything",
    async () => {
      const small = join(dir, "small");
      mkdirSync(small);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", small]);
      try {
        const r = await runBin(["lab", "--pg", "15", "--quick", "--work-dir", small]);
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toMatch(/GiB free but the lab's tables need about/);
        expect(readdirSync(small)).toEqual([]);
      } finally {
        execFileSync("umount", [small]);
      }
    },
    LIVE_TIMEOUT_MS,
  );
});
