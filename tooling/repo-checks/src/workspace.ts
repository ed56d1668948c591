/**
 * Finds the workspace's publishable packages (packages/* and apps/cli) and
 * reads their manifests, so the checks below can be written once for all.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface WorkspacePackage {
  dir: string;
  manifest: {
    name: string;
    private?: boolean;
    type?: string;
    exports?: Record<string, unknown>;
    files?: string[];
    dependencies?: Record<string, string>;
    scanlab?: { browser?: boolean };
  };
}

export function workspacePackages(group: "packages" | "apps"): WorkspacePackage[] {
  const base = join(repoRoot, group);
  if (!existsSync(base)) return [];
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(base, d.name, "package.json")))
    .map((d) => {
      const dir = join(base, d.name);
      return { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) };
    });
}

/** Every package that is published to npm. */
export function publishedPackages(): WorkspacePackage[] {
  return [...workspacePackages("packages"), ...workspacePackages("apps")].filter((p) => !p.manifest.private);
}
