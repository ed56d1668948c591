/** Default per-test timeout: a hang detector with a 30x margin over a test of twenty seconds. */
export declare const TEST_TIMEOUT_MS: number;
/** Default per-hook timeout (beforeAll may build fixtures or start a server). */
export declare const HOOK_TIMEOUT_MS: number;
/** The timeouts to spread into a vitest config's `test` object. */
export declare const timeouts: { testTimeout: number; hookTimeout: number };
