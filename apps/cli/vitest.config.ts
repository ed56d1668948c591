import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// The end-to-end tests run the built CLI (dist/bin.js) in child processes and
// simulate small scenarios, one file at a time. Timeouts catch hangs only
// (see @scanlab/test-config).
export default defineConfig({
  test: {
    ...timeouts,
    fileParallelism: false,
  },
});
