/**
 * Output fits the width: with COLUMNS=80 (off a terminal) every line of the
 * tables and prose is at most 80 columns; a wide COLUMNS leaves tables on
 * one line a row; --json does not depend on the width.
 */
import { describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

/** Columns a line without colour takes on a terminal: one a character. */
const columns = (line: string) => [...line].length;

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
