import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// Live test files start PostgreSQL clusters: one file at a time on a 2-core
// machine. Timeouts catch hangs only (see @scanlab/test-config).
export default defineConfig({
  test: {
    ...timeouts,
    fileParallelism: false,
  },
});
