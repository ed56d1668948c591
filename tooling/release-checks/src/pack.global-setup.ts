/**
 * Packs every published package once, with `npm pack` (exactly what
 * `npm publish` would upload), into a temporary folder shared by the tests
 * (publint lints these tarballs; the install test installs them). The
 * folder is removed when the run ends.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { publishedPackages, repoRoot } from "./workspace.js";

/** What `npm pack --json` says about one tarball. */
interface PackResult {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Package name -> absolute path of its tarball. */
    tarballs: Record<string, string>;
    /** Package name -> the paths inside its tarball. */
    tarballFiles: Record<string, string[]>;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "scanlab-pack-"));
  const packages = publishedPackages();
  // A package whose dist/ is missing still packs (without it): publint and
  // the install test then say what is wrong with that package alone.
  const out = execFileSync(
    "npm",
    [
      "pack",
      "--json",
      "--ignore-scripts",
      "--pack-destination",
      dir,
      ...packages.flatMap((p) => ["-w", p.manifest.name]),
    ],
    { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
  );
  const packed = JSON.parse(out) as PackResult[];
  project.provide("tarballs", Object.fromEntries(packed.map((r) => [r.name, join(dir, r.filename)])));
  project.provide(
    "tarballFiles",
    Object.fromEntries(packed.map((r) => [r.name, r.files.map((f) => f.path)])),
  );
  return () => rmSync(dir, { recursive: true, force: true });
}
