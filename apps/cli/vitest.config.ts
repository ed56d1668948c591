import { defineConfig } from "vitest/config";

// The end-to-end tests run the built CLI (dist/bin.js) in child processes and
// simulate small scenarios: give them room on a shared 2-core machine.
export default defineConfig({
  test: {
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
