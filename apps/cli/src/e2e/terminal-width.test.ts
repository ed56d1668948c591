/**
 * Output fits the width: with COLUMNS=80 (off a terminal) every line of the
 * tables and prose is at most 80 columns, tables too wide for it are split
 * without losing a value, and commands to copy wrap with shell
 * continuations; a wide COLUMNS leaves tables on one line a row; --json does
 * not depend on the width. (`scan` reads a file: terminal-width.live.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { seconds } from "../output/format.js";
import { runBin } from "./run-bin.js";
import { columns, fitted80, rowCells } from "./terminal-lines.js";

describe("COLUMNS=80", () => {
  it.concurrent.each([
    ["profiles list"],
    ["profiles show intel-ssd-320-120gb"],
    ["simulate --table-size 64MB --seed 1"],
    ["reproduce T4 --seed 1"],
  ])("every line of %s fits 80 columns", async (command) => {
    const r = await runBin(command.split(" "), { env: { COLUMNS: "80" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("\u001b");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(columns(line), line).toBeLessThanOrEqual(80);
  });
});

describe("advise at 80 columns", () => {
  // The advice of advise.test.ts (every row, the longest setting names and commands), scaled to 64 MB.
  const args = [
    "advise",
    ...["--device", "intel-ssd-320-120gb", "--os", "linux-5.4", "--table-size", "800GB"],
    ...["--clients", "6", "--cores", "4", "--sim-size", "64MB"],
  ];

  it("fits every line, each row's values and times whole, each command pasteable", async () => {
    const [text, json] = await Promise.all([
      runBin(args, { env: { COLUMNS: "80" } }),
      runBin([...args, "--json"], { env: { COLUMNS: "80" } }),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(json.code, json.stderr).toBe(0);
    const lines = fitted80(text.stdout);
    const recs: { setting: string; command: string; defaultTimeS: number | null }[] = JSON.parse(json.stdout)
      .result.recommendations;
    expect(recs.length).toBeGreaterThanOrEqual(4);
    // The commands after "shows it:", their continuation lines joined, are the JSON's, in order.
    const commands: string[] = [];
    lines.forEach((l, i) => {
      if (!l.startsWith("  shows it: ")) return;
      let end = i;
      while (lines[end]!.endsWith(" \\")) end++;
      const joined = lines
        .slice(i, end + 1)
        .map((x) => x.replace(/ \\$/, "").trim())
        .join(" ");
      commands.push(joined.slice("shows it: ".length));
    });
    expect(commands).toEqual(recs.map((r) => r.command));
    // Each row's default value and its time stay in one cell.
    for (const r of recs)
      if (r.defaultTimeS !== null) expect(text.stdout, r.setting).toContain(`(${seconds(r.defaultTimeS)})`);
    // At least one command is longer than a line, so the continuations are exercised.
    expect(recs.some((r) => r.command.length > 80)).toBe(true);
  });
});

describe("sweep at 80 columns", () => {
  const base = [
    "sweep",
    "--table-size",
    "32MB",
    "--device",
    "intel-ssd-320-120gb",
    "--cores",
    "4",
    "--ram",
    "1GB",
  ];

  it("splits a grid too wide for 80 columns into tables, every time in its row and order", async () => {
    const args = [
      ...base,
      ...["--vary", "read-ahead-kb=128,256,512,1024,2048,4096,8192,16384,32768"],
      ...["--vary", "workers=0,2"],
    ];
    const [text, json] = await Promise.all([
      runBin(args, { env: { COLUMNS: "80" } }),
      runBin([...args, "--json"]),
    ]);
    expect(text.code, text.stderr).toBe(0);
    const lines = fitted80(text.stdout);
    // Nine columns of times beside the names are wider than 80: more than one table, each led by the names.
    expect(lines.filter((l) => l.startsWith("┌")).length).toBeGreaterThan(1);
    const points: { values: { workers: number }; metrics: { timeS: number } }[] = JSON.parse(json.stdout)
      .result.points;
    for (const w of [0, 2]) {
      const times = points.filter((p) => p.values.workers === w).map((p) => seconds(p.metrics.timeS));
      expect(times).toHaveLength(9);
      expect(rowCells(lines, `workers=${w}`)).toEqual(times);
    }
  });

  it("fits one varied setting with a long name", async () => {
    const r = await runBin([...base, "--vary", "parallel-leader-participation=on,off", "--workers", "2"], {
      env: { COLUMNS: "80" },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = fitted80(r.stdout);
    expect(rowCells(lines, "on")).toHaveLength(5);
    expect(rowCells(lines, "off")).toHaveLength(5);
  });
});

describe("profiles list at 80 columns", () => {
  it("keeps every profile's name whole, on its row", async () => {
    const [list, json] = await Promise.all([
      runBin(["profiles", "list"], { env: { COLUMNS: "80" } }),
      runBin(["profiles", "list", "--json"]),
    ]);
    const names: string[] = JSON.parse(json.stdout).result.profiles.map((p: { name: string }) => p.name);
    for (const n of names) expect(list.stdout).toMatch(new RegExp(`^│ ${n} `, "m"));
  });
});

describe("a wide COLUMNS", () => {
  it("lists the profiles one line each, within the width", async () => {
    const [list, json] = await Promise.all([
      runBin(["profiles", "list"], { env: { COLUMNS: "200" } }),
      runBin(["profiles", "list", "--json"], { env: { COLUMNS: "200" } }),
    ]);
    const names: string[] = JSON.parse(json.stdout).result.profiles.map((p: { name: string }) => p.name);
    const lines = list.stdout.trimEnd().split("\n");
    for (const line of lines) expect(columns(line), line).toBeLessThanOrEqual(200);
    // After the first profile's row, every row of the table is a profile's.
    const rows = lines.filter((l) => l.startsWith("│"));
    const first = rows.findIndex((l) => l.includes(names[0]!));
    expect(rows.slice(first).map((l) => names.find((n) => l.startsWith(`│ ${n} `)))).toEqual(names);
  });

  it("--json is the same at any width", async () => {
    const [narrow, wide] = await Promise.all([
      runBin(["profiles", "show", "raid0-6x-intel-s3600-100gb", "--json"], { env: { COLUMNS: "20" } }),
      runBin(["profiles", "show", "raid0-6x-intel-s3600-100gb", "--json"], { env: { COLUMNS: "1000" } }),
    ]);
    expect(narrow.code).toBe(0);
    expect(narrow.stdout).toBe(wide.stdout);
  });
});
