/**
 * Live: every row captured again from a real server of every version, and
 * held against the committed fixture (exactly where the mechanism is
 * deterministic; by the row's stated rule where it is not) and against the
 * model. Skips with the reason printed when strace, psql or the server build
 * cannot be had, except under SCANLAB_REQUIRE_LIVE=1 (CI), where it fails.
 * The builds are fetched into the cache once (@scanlab/pg-harness
 * ensurePostgres); SCANLAB_UPDATE_FIXTURES=1 rewrites the fixtures instead.
 */
import { describe, expect, it } from "vitest";
import { readFixture, VERSIONS, writeFixture } from "./fixtures.js";
import { KNOWN_MISMATCHES } from "./known-mismatches.js";
import { ROWS } from "./rows.js";
import { captureFixture, serverGate } from "./servers.js";

const update = process.env.SCANLAB_UPDATE_FIXTURES === "1";

// Capturing one row on one version starts a cluster, builds tables and traces
// the scans: seconds to a minute alone, several times that on a loaded 2-core
// machine, and the first run fetches the server build. The timeout only
// catches a hang.
const CAPTURE_MS = 600_000;

for (const major of VERSIONS) {
  const gate = serverGate(major);
  if (!gate.available && !gate.required)
    console.warn(`live conformance on PG${major} skipped: ${gate.reason}`);
  describe.skipIf(!gate.available && !gate.required)(`live: PostgreSQL ${major}`, () => {
    for (const row of ROWS.filter((r) => r.versions.includes(major))) {
      it(`${row.title}: the server does what the fixture says, and the model agrees`, {
        timeout: CAPTURE_MS,
      }, async () => {
        if (!gate.available) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${gate.reason}`);
        const t0 = performance.now();
        const live = await captureFixture(row, major);
        console.log(
          `${row.name} PG${major} (${live.postgres}): ${live.cases.length} cases in ${Math.round(performance.now() - t0)} ms`,
        );
        if (update) {
          writeFixture(live);
          return;
        }
        const fixture = readFixture<(typeof live.cases)[number]>(row.name, major);
        expect(fixture, `no fixture for ${row.name} PG${major}`).not.toBeNull();
        expect(live.cases.map((c) => c.name)).toEqual(fixture!.cases.map((c) => c.name));
        for (const [i, c] of live.cases.entries()) {
          expect(
            row.sameAsFixture(c, fixture!.cases[i]!, major),
            `${c.name}: live capture vs fixture`,
          ).toBeNull();
          const known = KNOWN_MISMATCHES.some(
            (k) => k.row === row.name && k.major === major && k.caseName === c.name,
          );
          if (!known) expect(row.replay(c, major), `${c.name}: live capture vs the model`).toBeNull();
        }
      });
    }
  });
}
