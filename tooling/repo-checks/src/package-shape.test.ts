import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { publishedPackages } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";

const packages = publishedPackages();

describe("every published package", () => {
  it("exists at all (the monorepo is not empty)", () => {
    expect(packages.length).toBeGreaterThan(0);
  });

  for (const pkg of packages) {
    const { name } = pkg.manifest;
    describe(name, () => {
      it("is ESM-only with an exports map whose conditions list `types` first", () => {
        expect(pkg.manifest.type).toBe("module");
        const exportsMap = pkg.manifest.exports;
        expect(exportsMap, "exports map").toBeTypeOf("object");
        for (const [subpath, target] of Object.entries(exportsMap ?? {})) {
          // Data files (the manifest, a JSON Schema) are plain paths: they have no types or module format.
          if (subpath.endsWith(".json")) continue;
          expect(target, `${subpath} must be a conditions object`).toBeTypeOf("object");
          const conditions = Object.keys(target as object);
          expect(conditions[0], `${name} ${subpath}: first condition`).toBe("types");
          expect(conditions).not.toContain("require");
        }
      });

      it("ships only its build output and docs", () => {
        expect(pkg.manifest.files).toContain("dist");
      });

      it("has a README with a runnable example", () => {
        const readme = join(pkg.dir, "README.md");
        expect(existsSync(readme), "README.md").toBe(true);
        expect(readFileSync(readme, "utf8")).toMatch(/```(ts|js|sh|bash)/);
      });
    });
  }
});
