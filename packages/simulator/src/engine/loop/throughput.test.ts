import { describe, expect, it } from "vitest";
import { scanThroughput } from "./throughput.js";

describe("scanThroughput", () => {
  it("is the mean bytes of the finished runs over their mean duration", () => {
    const t = scanThroughput([
      { finished: true, blocks: 131072, durationS: 1 },
      { finished: true, blocks: 65536, durationS: 3 },
      // A run cut short counts neither its blocks nor its time.
      { finished: false, blocks: 9999, durationS: 0 },
    ]);
    expect(t.runs).toBe(2);
    expect(t.meanBytes).toBe(((131072 + 65536) / 2) * 8192);
    expect(t.meanDurationS).toBe(2);
    expect(t.mibPerS).toBe(768 / 2);
  });
  it("is NaN when no run finished", () => {
    const t = scanThroughput([{ finished: false, blocks: 10, durationS: 0 }]);
    expect(t.runs).toBe(0);
    expect(t.mibPerS).toBeNaN();
    expect(t.meanDurationS).toBeNaN();
  });
});
