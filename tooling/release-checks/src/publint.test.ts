/**
 * publint on what npm would actually publish: each package's tarball from
 * `npm pack` (see pack.global-setup.ts), at the strictest level (every
 * suggestion counts, warnings are errors). Clean means no message at all:
 * exports that point at missing files, types not reachable under `exports`,
 * CommonJS where ESM is declared, unpublished entry files, a bin that is not
 * executable, and the rest of publint's rules.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages, repoRoot } from "./workspace.js";

const tarballs = inject("tarballs");

describe("publint is clean on every published tarball", () => {
  for (const pkg of publishedPackages()) {
    const name = pkg.manifest.name;
    it(name, async () => {
      const tarball = tarballs[name];
      expect(tarball, `${name} was packed`).toBeDefined();
      const bytes = readFileSync(tarball!);
      const { messages, pkg: manifest } = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
        level: "suggestion",
        strict: true,
      });
      expect(messages.map((m) => `${m.type}: ${formatMessage(m, manifest, { color: false })}`)).toEqual([]);
    });
  }
});

describe("the tarballs hold the build, not the sources", () => {
  const files = inject("tarballFiles");
  for (const pkg of publishedPackages()) {
    const name = pkg.manifest.name;
    it(name, () => {
      const list = files[name] ?? [];
      expect(list).toContain("package.json");
      expect(list).toContain("README.md");
      expect(list, "the MIT licence text ships with the package").toContain("LICENSE");
      expect(list.some((f) => f.startsWith("dist/") && f.endsWith(".d.ts"))).toBe(true);
      // No sources, tests or fixtures: users install dist/ only.
      expect(
        list.filter((f) => /^(src|test|bench|fixtures)\//.test(f) || /\.test\.[cm]?[jt]s$/.test(f)),
      ).toEqual([]);
    });
  }
});

describe("a release is tested first", () => {
  it("the root release script runs the whole test suite before changesets publishes", () => {
    const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(root.scripts.release).toMatch(/^npm test && changeset publish$/);
  });
});

describe("every published manifest says where the project lives and under which licence", () => {
  for (const pkg of publishedPackages()) {
    const m = pkg.manifest;
    it(m.name, () => {
      expect(m.license).toBe("MIT");
      expect(m.repository?.url).toMatch(/^git\+https:\/\//);
      expect(m.repository?.directory).toBe(pkg.dir.slice(repoRoot.length + 1));
      expect(m.homepage).toMatch(/^https:\/\//);
      expect(m.bugs?.url).toMatch(/^https:\/\/.*\/issues$/);
      // Published from CI only, with a signed statement of the commit and workflow that built it.
      expect(m.publishConfig).toEqual({ access: "public", provenance: true });
      expect(readFileSync(join(pkg.dir, "LICENSE"), "utf8")).toBe(
        readFileSync(join(repoRoot, "LICENSE"), "utf8"),
      );
    });
  }
});
