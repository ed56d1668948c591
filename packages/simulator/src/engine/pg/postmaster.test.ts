/**
 * Worker launch: the postmaster forks one worker at a time (workerForkUs
 * each, shared by every query on the instance), then each worker
 * initialises (workerInitUs) before its first block request.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CPU_COSTS } from "./cpu-costs.js";
import { Postmaster } from "./postmaster.js";

const pm = () => new Postmaster(DEFAULT_CPU_COSTS.workerForkUs, DEFAULT_CPU_COSTS.workerInitUs);

describe("Postmaster", () => {
  it("forks one at a time: workers start 0.3 ms apart, the first 0.3 + 1.5 ms after the request", () => {
    expect(pm().launch(0, 3)).toEqual([1800, 2100, 2400]);
    expect(pm().launch(1000, 2)).toEqual([2800, 3100]);
  });

  it("no workers asked, none launched", () => {
    const p = pm();
    expect(p.launch(0, 0)).toEqual([]);
    expect(p.launch(0, 1)).toEqual([1800]); // and the postmaster was not kept busy
  });

  it("a second query's forks queue behind the first's", () => {
    const p = pm();
    p.launch(0, 3); // forks busy until 900
    expect(p.launch(100, 2)).toEqual([900 + 300 + 1500, 900 + 600 + 1500]);
  });

  it("an idle postmaster starts forking at once", () => {
    const p = pm();
    p.launch(0, 3);
    expect(p.launch(10_000, 1)).toEqual([11_800]);
  });

  it("six clients starting 10-worker queries together: about 60 forks, their first workers 15 ms apart end to end", () => {
    const p = pm();
    const launches = Array.from({ length: 6 }, () => p.launch(0, 10));
    expect(launches.flat()).toHaveLength(60);
    expect(launches[0]![0]).toBe(1800);
    expect(launches[5]![0]).toBe(50 * 300 + 300 + 1500);
    expect(launches[5]![9]).toBe(60 * 300 + 1500);
    expect(launches[5]![0]! - launches[0]![0]!).toBe(15_000);
  });

  it("the fork and init costs are the constructor's (scenarios override cpu.workerForkUs / workerInitUs)", () => {
    expect(new Postmaster(1000, 0).launch(0, 3)).toEqual([1000, 2000, 3000]);
    expect(new Postmaster(0, 500).launch(7, 3)).toEqual([507, 507, 507]);
  });
});
