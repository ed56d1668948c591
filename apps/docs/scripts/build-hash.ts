/**
 * A fingerprint of the built code the site is made from: every file under
 * the dist/ of the CLI and of every workspace package. The reproduce cache
 * is keyed by it, and the site records it (dist/build-info.json) so the
 * browser test can tell a site built from other package builds (on a
 * machine where the packages were rebuilt since) from a real disagreement
 * between the browser and Node.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The monorepo root. */
export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** Every file under `dir` (recursively), sorted by path; none when `dir` does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/** Hash of apps/cli/dist and packages/x/dist, 16 hex digits. */
export function buildHash(): string {
  const h = createHash("sha256");
  const dirs = [
    join(repoRoot, "apps", "cli"),
    ...readdirSync(join(repoRoot, "packages"))
      .sort()
      .map((d) => join(repoRoot, "packages", d)),
  ];
  for (const dir of dirs) {
    for (const f of filesUnder(join(dir, "dist"))) {
      h.update(relative(repoRoot, f));
      h.update(readFileSync(f));
    }
  }
  return h.digest("hex").slice(0, 16);
}
