/**
 * Test timeouts shared by every scanlab package.
 *
 * A timeout here catches a test that hangs; it never measures speed. Speed is
 * measured in `npm run bench`, side by side in one run. The tests must pass on
 * a busy 2-core machine: `npm test` runs two turbo tasks at once, each vitest
 * runs its files in parallel, and a developer may run a second `npm test`
 * beside the first. A CPU-bound test then takes five to ten times as long as
 * it does alone, so the default allows two minutes for a test that takes well
 * under ten seconds alone. A test that takes longer alone names its own,
 * larger timeout beside it, with the reason.
 */

/** Default per-test timeout: a hang detector with a 10x margin over a test of a few seconds. */
export const TEST_TIMEOUT_MS = 120_000;

/** Default per-hook timeout (beforeAll may build fixtures or start a server). */
export const HOOK_TIMEOUT_MS = 180_000;

/** The timeouts to spread into a vitest config's `test` object. */
export const timeouts = { testTimeout: TEST_TIMEOUT_MS, hookTimeout: HOOK_TIMEOUT_MS };
