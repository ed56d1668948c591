/**
 * `scanlab lab` bad input: each case exits 2 with one sentence on stderr and
 * no stack trace, before any cluster starts, and leaves nothing in the
 * temporary directory.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-cli-lab-"));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const broken = join(dir, "broken-profile.json");
writeFileSync(broken, '{ "kind": "flash", "name": ');
const wrongKind = join(dir, "tape-profile.json");
writeFileSync(wrongKind, JSON.stringify({ kind: "tape", name: "x" }));

const cases: { args: string[]; mentions: RegExp }[] = [
  { args: ["--pg", "12"], mentions: /--pg 12 is not a PostgreSQL version the lab can run/ },
  { args: ["--pg", "fifteen"], mentions: /--pg fifteen/ },
  { args: ["--pg", "15,"], mentions: /empty item/ },
  { args: ["--pg", "15", "--profile", broken], mentions: /broken-profile\.json/ },
  { args: ["--pg", "15", "--profile", wrongKind], mentions: /tape-profile\.json|kind/ },
  { args: ["--pg", "15", "--profile", join(dir, "missing.json")], mentions: /missing\.json does not exist/ },
  { args: ["--pg", "15", "--runs", "2"], mentions: /runs/ },
  {
    args: ["--pg", "15", "--cells", "no such cell", "--work-dir", dir],
    mentions: /no cell is selected: cell ids look like "pg15 /,
  },
  { args: ["--pg", "15", "--cells", "seq,"], mentions: /--cells "seq," has an empty item/ },
  { args: ["--pg", "15", "--json", join(dir, "no-such-dir", "out.json")], mentions: /--json/ },
  { args: ["--pg", "15", "--report", dir], mentions: /--report .* is a directory/ },
  {
    args: ["--pg", "15", "--work-dir", join(dir, "nowhere")],
    mentions: /work directory .*nowhere does not exist/,
  },
];

describe("scanlab lab: bad input", () => {
  for (const c of cases) {
    it(`refuses ${c.args.join(" ")}`, async () => {
      const tmp = mkdtempSync(join(tmpdir(), "scanlab-cli-lab-tmp-"));
      try {
        const r = await runBin(["lab", ...c.args], { env: { TMPDIR: tmp } });
        expect(r.code).toBe(2);
        const lines = r.stderr.trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(c.mentions);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(readdirSync(tmp)).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
