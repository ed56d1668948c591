/**
 * The rest of the command line as a user meets it: --help with examples on
 * every command, --version, profiles (and a profile file --device accepts),
 * calibrate's refusal to write over the file it measures, advise.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { calibrateArgs, PKG, runBin } from "./run-bin.js";

const dir = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "scanlab-cmds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("help and version", () => {
  const commands = [
    [],
    ["reproduce"],
    ["simulate"],
    ["sweep"],
    ["worker"],
    ["scan"],
    ["calibrate"],
    ["lab"],
    ["advise"],
    ["profiles"],
    ["trace"],
    ["trace", "import"],
  ];
  it.concurrent.each(commands.map((c) => [c.join(" ") || "scanlab", c]))(
    "%s --help fits 80 columns and has examples",
    async (_n, cmd) => {
      const r = await runBin([...(cmd as string[]), "--help"]);
      expect(r.code).toBe(0);
      for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
      // An "Examples:" section with one example (or comment) per line; a long command
      // continues on indented lines after a backslash.
      const section = r.stdout.split("\nExamples:\n")[1] ?? "";
      const lines = section
        .trimEnd()
        .replace(/ \\\n {6}/g, " ")
        .split("\n");
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line).toMatch(/^ {2}(\$ (scanlab|strace|blktrace) |# )/);
    },
  );
  it("simulate --help groups the scenario flags by what they set", async () => {
    const r = await runBin(["simulate", "--help"]);
    const headings = r.stdout.split("\n").filter((l) => /^[A-Z][A-Za-z ]*:$/.test(l));
    expect(headings).toEqual([
      "Arguments:",
      "Machine:",
      "PostgreSQL server:",
      "Table:",
      "Query:",
      "Clients:",
      "Options:",
      "Examples:",
    ]);
    const machine = r.stdout.slice(r.stdout.indexOf("Machine:"), r.stdout.indexOf("PostgreSQL server:"));
    expect(machine).toContain("--read-ahead-kb <KB>");
    expect(machine).not.toContain("--workers");
  });
  it("--version prints the package version", async () => {
    const r = await runBin(["--version"]);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version);
  });
});

describe("profiles", () => {
  it("lists the built-ins; show --out writes a file --device accepts, with the same simulation", async () => {
    const list = await runBin(["profiles", "list", "--json"]);
    const names = JSON.parse(list.stdout).result.profiles.map((p: { name: string }) => p.name);
    expect(names).toContain("intel-ssd-320-120gb");
    const file = join(dir, "intel.json");
    const shown = await runBin(["profiles", "show", "intel-ssd-320-120gb", "--out", file]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Profile written to ${file}`);
    const sim = (device: string) =>
      runBin(["simulate", "--table-size", "64MB", "--device", device, "--json"]).then(
        (r) => JSON.parse(r.stdout).result.simulation,
      );
    expect(await sim(file)).toEqual(await sim("intel-ssd-320-120gb"));
  });
  it("show prints the sources", async () => {
    const r = await runBin(["profiles", "show", "hdd-7200rpm"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Sources");
  });
});

describe("calibrate never writes over the file it measures", () => {
  it.each(["the file", "a symbolic link to it"])("--out %s: exit 2, data unchanged", async (what) => {
    const data = join(dir, `keep-${what.length}.dat`);
    const content = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7) & 0xff;
    writeFileSync(data, content);
    const before = statSync(data).mtimeMs;
    let out = data;
    if (what !== "the file") {
      out = join(dir, `link-${what.length}.json`);
      symlinkSync(data, out);
    }
    const r = await runBin(calibrateArgs(data, out, 100));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the file being measured");
    expect(readFileSync(data).equals(content)).toBe(true);
    expect(statSync(data).mtimeMs).toBe(before);
  });
});

describe("advise", () => {
  it("with a profile file, the commands it prints run as they are", async () => {
    const file = join(dir, "advise-disk.json");
    const shown = await runBin(["profiles", "show", "intel-ssd-320-120gb", "--out", file]);
    expect(shown.code).toBe(0);
    writeFileSync(file, readFileSync(file, "utf8").replace('"intel-ssd-320-120gb"', '"my-disk"'));
    const r = await runBin([
      "advise",
      "--device",
      file,
      "--os",
      "linux-5.4",
      "--table-size",
      "64MB",
      "--cores",
      "2",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const eic = JSON.parse(r.stdout).result.recommendations.find(
      (x: { setting: string }) => x.setting === "effective_io_concurrency",
    );
    expect(eic.command).toContain(`--device ${file}`);
    const again = await runBin([...eic.command.split(" ").slice(1), "--json"]);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
  });

  it("recommends each setting with its simulated gain and the command that shows it", async () => {
    const r = await runBin([
      "advise",
      "--device",
      "intel-ssd-320-120gb",
      "--os",
      "linux-5.4",
      "--table-size",
      "128MB",
      "--cores",
      "4",
      "--ram",
      "2GB",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result;
    const settings = json.recommendations.map((x: { setting: string }) => x.setting);
    expect(settings.some((s: string) => s.startsWith("max_parallel_workers_per_gather"))).toBe(true);
    expect(settings).toContain("effective_io_concurrency");
    expect(settings.some((s: string) => s.startsWith("read_ahead_kb"))).toBe(true);
    const cap = json.recommendations.find((x: { setting: string }) => x.setting.startsWith("chunk cap"));
    // 128 MB = 16,384 blocks: chunks of next_pow2(16384 / 2048) = 8 blocks, far below the 8192 cap (apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes).
    if (cap) expect(cap.recommended).toBe("does not matter");
    for (const x of json.recommendations) expect(x.command).toMatch(/^scanlab sweep /);
    expect(json.scale).toBeNull();
  });
  it("says when it scaled the table down", async () => {
    const r = await runBin([
      "advise",
      "--device",
      "intel-ssd-320-120gb",
      "--os",
      "freebsd-13",
      "--table-size",
      "4GB",
      "--sim-size",
      "128MB",
      "--cores",
      "2",
      "--ram",
      "8GB",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/scaled down 32\.0x/);
  });
});
