/**
 * The seam rule over the repository: no file of `packages/simulator/src/engine`
 * outside `seam/` imports a `@scanlab/*` package (see engine-seam.ts). The
 * engine's TypeScript, tests included, is read from the working tree.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";
import { ENGINE_DIR, findSeamBreaches, SEAM_DIR } from "./engine-seam.js";
import type { SourceFile } from "./shared-leaf.js";

function walk(dir: string, out: SourceFile[]): SourceFile[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(?:ts|tsx|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts"))
      out.push({ path: relative(repoRoot, full).split("\\").join("/"), text: readFileSync(full, "utf8") });
  }
  return out;
}

describe("the simulator engine reaches the model packages only through seam/", () => {
  const files = walk(join(repoRoot, ENGINE_DIR), []);

  it("reads the engine's folders, and the seam's imports are what the rule exempts", () => {
    for (const dir of ["loop/", "pg/", "seam/", "speedups/"])
      expect(files.some((f) => f.path.startsWith(ENGINE_DIR + dir))).toBe(true);
    // The rule would see the seam's imports if it looked: it is not blind to them.
    const seam = files
      .filter((f) => f.path.startsWith(SEAM_DIR))
      .map((f) => ({ ...f, path: `${ENGINE_DIR}x/${f.path}` }));
    expect(findSeamBreaches(seam).length).toBeGreaterThan(0);
  });

  it("no file outside seam/ imports a @scanlab/* package", () => {
    const breaches = findSeamBreaches(files).map((b) => `${b.path}:${b.line} imports ${b.specifier}`);
    expect(breaches).toEqual([]);
  });
});
