/**
 * apps/docs/src/reference/design.md: every package except file-scan (and the CLI) runs in a browser,
 * so the docs playground can run the simulator. The rule is checked on the
 * built main entry (what a bundler would pull in), not on the sources:
 * no import of a Node built-in, and no use of `process` or `Buffer`.
 * Node-only helpers belong in a separate `./node` entry.
 */
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { NODE_ONLY_PACKAGES, publishedPackages } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** All files reachable from an entry through relative imports (tsup splits chunks). */
function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
      stack.push(resolve(dirname(file), m[1]!));
    }
  }
  return [...seen];
}

function importedSpecifiers(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g)].map((m) => m[1]!);
}

describe("browser-safe main entries", () => {
  for (const pkg of publishedPackages().filter((p) => !NODE_ONLY_PACKAGES.has(p.manifest.name))) {
    it(`${pkg.manifest.name}: main entry uses no Node built-ins`, () => {
      const entry = join(pkg.dir, "dist", "index.js");
      expect(existsSync(entry), `${entry} (run the build first)`).toBe(true);
      const offenders: string[] = [];
      for (const file of reachable(entry)) {
        const text = readFileSync(file, "utf8");
        for (const spec of importedSpecifiers(text))
          if (builtins.has(spec)) offenders.push(`${file}: ${spec}`);
        if (/\bprocess\.(env|argv|exit|cwd|hrtime)\b/.test(text)) offenders.push(`${file}: process.*`);
        if (/\bBuffer\.(from|alloc)\b/.test(text)) offenders.push(`${file}: Buffer`);
      }
      expect(offenders).toEqual([]);
    });
  }
});
