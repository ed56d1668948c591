import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// Test files run one after another: several write hundreds of MB, and on a
// 2-core machine running them side by side only adds contention. Timeouts
// catch hangs only (see @scanlab/test-config).
export default defineConfig({
  test: {
    ...timeouts,
    fileParallelism: false,
  },
});
