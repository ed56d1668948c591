import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePageReporting, settleFreedMemory } from "./free-page-reporting.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-reporting-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A machine's /sys/module parameters directory and /proc/interrupts, as files under `dir`. */
function machine(name: string, opts: { pageReporting: boolean; interrupts: string }) {
  const parameters = join(dir, name, "parameters");
  mkdirSync(parameters, { recursive: true });
  if (opts.pageReporting) writeFileSync(join(parameters, "page_reporting_order"), "9\n");
  const interrupts = join(dir, name, "interrupts");
  writeFileSync(interrupts, opts.interrupts);
  return { parameters, interrupts };
}

// Lines of /proc/interrupts of a Firecracker guest with a balloon that reports free pages.
const BALLOON = [
  "           CPU0       CPU1",
  " 31:          0      12611 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats",
  " 32:       7649          0 PCI-MSIX-0000:00:01.0   4-edge      virtio0-reporting_vq",
  " 36:          0   36114811 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0",
  "",
].join("\n");
const NO_BALLOON = [
  "           CPU0       CPU1",
  " 36:          0   36114811 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0",
  "",
].join("\n");

describe("freePageReporting", () => {
  it("is active when the kernel reports free pages and a balloon's reporting queue has an interrupt", () => {
    const r = freePageReporting(machine("vm", { pageReporting: true, interrupts: BALLOON }));
    expect(r.active).toBe(true);
    expect(r.why).toMatch(/reported to the hypervisor/);
  });

  it("is inactive on a kernel without free page reporting, whatever the devices", () => {
    const r = freePageReporting(machine("old-kernel", { pageReporting: false, interrupts: BALLOON }));
    expect(r).toEqual({
      active: false,
      why: "the kernel has no free page reporting (no page_reporting parameters)",
    });
  });

  it("is inactive when no device receives the reports (bare metal with the same kernel)", () => {
    const r = freePageReporting(machine("metal", { pageReporting: true, interrupts: NO_BALLOON }));
    expect(r.active).toBe(false);
    expect(r.why).toMatch(/no balloon's reporting queue/);
  });
});

describe("settleFreedMemory", () => {
  it("returns at once where freed memory stays backed", async () => {
    await expect(settleFreedMemory(undefined, { active: false, why: "" })).resolves.toBe(false);
  });

  it("waits where memory is reported, and an abort ends the wait early", async () => {
    const controller = new AbortController();
    const waited = settleFreedMemory(controller.signal, { active: true, why: "" });
    controller.abort();
    await expect(waited).resolves.toBe(true);
  });
});
