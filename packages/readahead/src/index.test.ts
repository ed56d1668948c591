/**
 * The main entry holds the models and the page cache; the test-grade scan
 * harness is on `./harness` and the simulator's renumbering hook on `./sim`.
 * The runtime values of each entry are pinned here so neither drifts back
 * onto the main entry unnoticed (types are erased at run time).
 */
import { describe, expect, it } from "vitest";
import * as harness from "./harness.js";
import * as entry from "./index.js";
import * as sim from "./sim.js";

describe("@scanlab/readahead entries", () => {
  it("main: the models, the page cache and the factory", () => {
    expect(Object.keys(entry).sort()).toEqual(
      [
        "DirectIo",
        "FreeBsdOpenFile",
        "FreeBsdUfsReadahead",
        "LinuxOpenFile",
        "LinuxReadahead",
        "OS_PRESETS",
        "PAGE_BYTES",
        "PageCache",
        "ReadaheadError",
        "WindowsOpenFile",
        "WindowsReadahead",
        "createReadaheadModel",
        "directIo",
        "freebsdUfsReadahead",
        "linuxReadahead",
        "windowsReadahead",
      ].sort(),
    );
  });

  it("harness: the scan simulator and the prediction tables", () => {
    expect(Object.keys(harness).sort()).toEqual(
      ["KNOWN_DIVERGENCES", "PREDICTION_TABLES", "reproducePredictionTables", "simulateScan"].sort(),
    );
  });

  it("sim: the renumbering hooks", () => {
    expect(Object.keys(sim).sort()).toEqual(["renumberOpenFile", "renumberSegmentFiles"]);
  });
});
