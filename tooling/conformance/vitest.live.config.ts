import { defineConfig } from "vitest/config";

// Live captures from real PostgreSQL servers (one at a time: each file starts
// clusters and traces them with strace, and timing-sensitive captures must not
// share two cores with each other). Fetching a server build takes tens of
// seconds the first time, and a capture of one mechanism on one version a few
// seconds to a minute on a loaded 2-core machine: generous timeouts.
export default defineConfig({
  test: {
    include: ["src/**/*.live.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
