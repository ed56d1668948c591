/**
 * Finding what a live PostgreSQL test needs (the server binaries, strace) and
 * deciding what to do when something is missing: skip with the reason
 * printed, except under SCANLAB_REQUIRE_LIVE=1 (CI), where a missing
 * prerequisite must fail the test.
 */
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Where Debian / Ubuntu (postgresql-common) install each major version's server binaries. */
const DEBIAN_PG_ROOT = "/usr/lib/postgresql";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH (plus /usr/sbin and /sbin, which root's PATH may lack in containers). */
export function which(command: string): string | null {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/sbin", "/bin", "/sbin"];
  for (const dir of dirs) {
    if (dir === "") continue;
    const path = join(dir, command);
    if (isExecutable(path)) return path;
  }
  return null;
}

/**
 * The directory holding `postgres`, `initdb` and `pg_ctl` for a major version:
 * `$SCANLAB_PG_BIN` if set, else `/usr/lib/postgresql/<major>/bin`. Without a
 * major, the newest installed one. Returns null if none is found.
 */
export function findPgBin(major?: number): string | null {
  const fromEnv = process.env.SCANLAB_PG_BIN;
  if (fromEnv) return isExecutable(join(fromEnv, "postgres")) ? fromEnv : null;
  if (!existsSync(DEBIAN_PG_ROOT)) return null;
  const majors =
    major === undefined
      ? readdirSync(DEBIAN_PG_ROOT)
          .map(Number)
          .filter((n) => Number.isInteger(n))
          .sort((a, b) => b - a)
      : [major];
  for (const m of majors) {
    const bin = join(DEBIAN_PG_ROOT, String(m), "bin");
    if (
      isExecutable(join(bin, "postgres")) &&
      isExecutable(join(bin, "initdb")) &&
      isExecutable(join(bin, "pg_ctl"))
    ) {
      return bin;
    }
  }
  return null;
}

/** What a live test needs. */
export interface LiveRequirements {
  /** PostgreSQL major version whose server must be installed (default: any). */
  pgMajor?: number;
  /** Whether strace must be installed (default true). */
  strace?: boolean;
}

/** The outcome of {@link liveGate}. */
export interface LiveGate {
  /** Everything needed is there. */
  available: boolean;
  /** SCANLAB_REQUIRE_LIVE=1: a missing prerequisite must fail, not skip. */
  required: boolean;
  /** Why the test cannot run (when not available). */
  reason: string | null;
  /** PostgreSQL bin directory, when found. */
  pgBin: string | null;
  /** strace path, when found (and asked for). */
  strace: string | null;
  /** psql path, when found. */
  psql: string | null;
}

/**
 * Checks the prerequisites of a live PostgreSQL test. Typical use in vitest:
 *
 * ```ts
 * const gate = liveGate({ pgMajor: 15 });
 * if (!gate.available && !gate.required) console.warn(`skipping live test: ${gate.reason}`);
 * describe.skipIf(!gate.available && !gate.required)("live", () => {
 *   it("runs", async () => { if (!gate.available) throw new Error(gate.reason!); ... });
 * });
 * ```
 */
export function liveGate(requirements: LiveRequirements = {}): LiveGate {
  const required = process.env.SCANLAB_REQUIRE_LIVE === "1";
  const pgBin = findPgBin(requirements.pgMajor);
  const psql = pgBin !== null && isExecutable(join(pgBin, "psql")) ? join(pgBin, "psql") : which("psql");
  const strace = requirements.strace === false ? null : which("strace");
  const missing: string[] = [];
  if (pgBin === null) {
    missing.push(
      requirements.pgMajor === undefined
        ? "no PostgreSQL server binaries (postgres, initdb, pg_ctl) under /usr/lib/postgresql/*/bin or $SCANLAB_PG_BIN"
        : `no PostgreSQL ${requirements.pgMajor} server binaries in /usr/lib/postgresql/${requirements.pgMajor}/bin (Debian package postgresql-${requirements.pgMajor}) or $SCANLAB_PG_BIN`,
    );
  }
  if (psql === null) missing.push("no psql client");
  if (requirements.strace !== false && strace === null) missing.push("no strace (Debian package strace)");
  if (process.platform !== "linux") missing.push(`strace tracing needs Linux (this is ${process.platform})`);
  return {
    available: missing.length === 0,
    required,
    reason: missing.length === 0 ? null : missing.join("; "),
    pgBin,
    strace,
    psql,
  };
}
