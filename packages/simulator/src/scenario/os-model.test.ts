import { describe, expect, it } from "vitest";
import { testScenario } from "../../test/scenario-builder.js";
import { simulateWith } from "../engine/loop/simulate.js";
import { realModels } from "../engine/seam/adapters.js";
import { ScenarioError } from "../errors.js";
import { describeOsModel, OS_NAMES, osModel } from "../index.js";
import { resolveScenario } from "./resolve.js";
import type { OsName } from "./types.js";

describe("OS name -> readahead model", () => {
  it("maps Linux releases to the preset whose rules, read loop and read_ahead_kb default they have", () => {
    const preset = (n: string) => [osModel(n)?.preset, osModel(n)?.defaultReadAhead];
    expect(preset("linux-4.20")).toEqual(["linux-5.4", "128kB"]);
    expect(preset("linux-5.4")).toEqual(["linux-5.4", "128kB"]);
    expect(preset("linux-5.8")).toEqual(["linux-5.4", "128kB"]);
    expect(preset("linux-5.9")).toEqual(["linux-5.4", "io_opt"]);
    expect(preset("linux-5.11")).toEqual(["linux-5.4", "io_opt"]);
    expect(preset("linux-5.12")).toEqual(["linux-6.1", "io_opt"]);
    expect(preset("linux-6.1")).toEqual(["linux-6.1", "io_opt"]);
    expect(preset("linux-6.9")).toEqual(["linux-6.1", "io_opt"]);
    expect(preset("linux-6.10")).toEqual(["linux-6.10", "io_opt"]);
    expect(preset("linux-6.18")).toEqual(["linux-6.10", "io_opt"]);
    expect(preset("freebsd-11")).toEqual(["freebsd-12", null]);
    expect(preset("freebsd-14")).toEqual(["freebsd-13", null]);
  });

  it("every name offered in help is accepted and runs its own preset", () => {
    for (const n of OS_NAMES) expect(osModel(n)?.preset).toBe(n);
  });

  it("refuses what no model covers", () => {
    for (const n of [
      "linux-2.4",
      "linux-4.19",
      "linux-5.20",
      "linux-6.19",
      "linux-7.0",
      "freebsd-10",
      "freebsd-15",
      "macos",
      "linux-6",
    ])
      expect(osModel(n), n).toBeNull();
  });

  it("describes the mapping in one line", () => {
    expect(describeOsModel("linux-6.1")).toBe(
      "linux-6.1: readahead rules as Linux 4.20-6.9 (ondemand_readahead), read loop as 5.12+ (filemap_read), order-0 pages; default read_ahead_kb max(2 x io_opt, 128 kB) (5.9+); preset linux-6.1",
    );
  });

  it("a scenario with an unknown OS is one problem that lists what is accepted", () => {
    let err: unknown;
    try {
      resolveScenario(testScenario({ machine: { os: "linux-2.4" as OsName } }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).message).toContain(
      '"linux-2.4" is not an OS this simulator models; use linux-4.20 to linux-6.18',
    );
  });

  it("linux-6.1 simulates its own preset: not linux-5.4's read loop, nor 6.10's rules", () => {
    const run = (os: OsName) =>
      simulateWith(
        resolveScenario(testScenario({ machine: { os }, table: { blocks: 4000 }, query: { workers: 2 } })),
        realModels,
        {},
      ).device;
    const d61 = run("linux-6.1");
    expect(run("linux-6.5")).toEqual(d61);
    expect(d61).not.toEqual(run("linux-6.10"));
  });
});
