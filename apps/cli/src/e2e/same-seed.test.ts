/**
 * The same seed prints the same bytes: `simulate`, `sweep` and `reproduce`
 * (a small target) run twice give byte-identical stdout, as text and as
 * JSON. How long the simulator took is not a result; it goes to stderr.
 * The two runs of a pair go side by side, so their wall times differ.
 */
import { describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const commands: [string, string[]][] = [
  ["simulate", ["simulate", "--table-size", "2GB", "--workers", "2", "--seed", "7"]],
  [
    "sweep",
    [
      "sweep",
      "--table-size",
      "256MB",
      "--vary",
      "workers=0,2",
      "--vary",
      "allocator=pg11,pg14",
      "--seed",
      "7",
    ],
  ],
  [
    "reproduce",
    [
      "reproduce",
      "T4",
      "--rows",
      "int-spinlock,int-atomics",
      "--no-calibration",
      "--seed",
      "7",
      "--jobs",
      "2",
    ],
  ],
];

describe("same seed, same bytes on stdout", () => {
  it.each(
    commands.flatMap(([name, args]) => [
      [`${name} (text)`, args],
      [`${name} --json`, [...args, "--json"]],
    ]),
  )("%s", async (_name, args) => {
    const [a, b] = await Promise.all([runBin(args as string[]), runBin(args as string[])]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout.length).toBeGreaterThan(100);
    expect(b.stdout).toBe(a.stdout);
  });

  it("reproduce tells its wall time on stderr, not stdout", async () => {
    const r = await runBin(commands[2]![1]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/wall time/);
    expect(r.stderr).toMatch(/^T4: simulated in .* of wall time$/m);
  });
});
