import { describe, expect, it } from "vitest";
import { measureWakeUp, WAKE_UP_IDLE_MS } from "./wake-up.js";

describe("measureWakeUp", () => {
  it("times a wake-up as half a futex round trip between two threads: positive, finite, and said how", async () => {
    // 20 round trips of about 1 ms each; the generous timeout is for a loaded machine starting a thread.
    const r = await measureWakeUp(20);
    expect(Number.isFinite(r.wakeUpUs)).toBe(true);
    expect(r.wakeUpUs).toBeGreaterThan(0);
    expect(r.measuredWith).toContain(`${WAKE_UP_IDLE_MS} ms asleep`);
  }, 60_000);
});
