/**
 * Test timeouts shared by every scanlab package.
 *
 * A timeout here catches a test that hangs; it never measures speed. Speed is
 * measured in `npm run bench`, side by side in one run. The tests must pass on
 * a busy 2-core machine: `npm test` runs two turbo tasks at once, each vitest
 * runs its files in parallel, and a developer may run a second `npm test`
 * beside the first, while other work shares the cores too. A CPU-bound test
 * then takes ten to thirty times as long as it does alone, so the default
 * allows ten minutes for a test that takes well under twenty seconds alone.
 * A test that takes longer alone names its own, larger timeout beside it,
 * with the reason. A real hang is still caught, ten minutes later.
 */

/** Default per-test timeout: a hang detector with a 30x margin over a test of twenty seconds. */
export const TEST_TIMEOUT_MS = 600_000;

/** Default per-hook timeout (beforeAll may build fixtures or start a server). */
export const HOOK_TIMEOUT_MS = 900_000;

/** The timeouts to spread into a vitest config's `test` object. */
export const timeouts = { testTimeout: TEST_TIMEOUT_MS, hookTimeout: HOOK_TIMEOUT_MS };
