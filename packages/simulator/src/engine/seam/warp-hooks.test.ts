import { describe, expect, it } from "vitest";
import { testScenario } from "../../../test/scenario-builder.js";
import { resolveScenario } from "../../scenario/resolve.js";
import { OsAdapter } from "./os-adapter.js";

/**
 * The OS side of the warp's cut (os-adapter.ts, `clearAhead`): pages still
 * cached ahead of the scans from an earlier run may be dropped only if the
 * skipped reads would have pushed them out, least recently used first, before
 * the scans got to them. Worked by hand on a page cache of 8 segment files
 * (128 pages each, 1024 in all), holding segments 10..15 (oldest first) and
 * room for 2 more.
 */
function os() {
  const resolved = resolveScenario(testScenario({ table: { blocks: 20 * 64, segmentBlocks: 64 } }));
  const port = new OsAdapter(resolved, 1024);
  for (let seg = 10; seg < 16; seg++) port.warm(seg, 128);
  const cached = () => [...Array(20).keys()].filter((seg) => port.isResident(seg, 127));
  return { warp: port.warp!, cached };
}

describe("clearAhead", () => {
  it("refuses when pages after the stretch would survive its reads (6 segments read, 2 fit, 4 pushed out)", () => {
    const { warp, cached } = os();
    expect(warp.clearAhead(0, 2, 8, [[8, 20]], 0, true)).toBe(false);
    expect(warp.clearAhead(0, 2, 8, [[8, 20]], 0, false)).toBe(false);
    expect(cached()).toEqual([10, 11, 12, 13, 14, 15]);
  });

  it("drops them when every one would be gone: pages inside the stretch by the time it is reached, after it by its end", () => {
    const { warp, cached } = os();
    // Segments 10 and 11 are reached after 8 segments (1024 pages) are read: 768 pushed out, all six.
    expect(warp.clearAhead(0, 2, 12, [[12, 20]], 0, true)).toBe(true);
    expect(cached()).toEqual([10, 11, 12, 13, 14, 15]); // a dry run changes nothing
    expect(warp.clearAhead(0, 2, 12, [[12, 20]], 0, false)).toBe(true);
    expect(cached()).toEqual([]);
  });

  it("refuses a cached page the stretch would reach before anything was pushed out", () => {
    const { warp } = os();
    // Segment 10 is reached after one segment (128 pages) is read, which fits in the room left.
    expect(warp.clearAhead(0, 9, 12, [], 0, true)).toBe(false);
  });
});
