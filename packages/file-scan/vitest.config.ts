import { defineConfig } from "vitest/config";

// Test files run one after another: they write hundreds of MB and one of them
// reads /proc/diskstats, which a concurrent test's I/O would pollute. The
// machine is shared and small (2 cores), so timeouts are generous.
export default defineConfig({
  test: {
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
