import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// `test` replays the committed fixtures offline (no PostgreSQL needed);
// `test:live` runs conformance.live.test.ts, which starts real servers and
// traces them with strace, one file at a time. Capturing one mechanism on one
// version takes a few seconds to a minute on a loaded 2-core machine, and the
// first run fetches each server build: its cases name their own, larger
// timeouts. The defaults only catch hangs (see @scanlab/test-config).
export default defineConfig({
  test: {
    ...timeouts,
    include: ["src/**/*.test.ts"],
    pool: "forks",
  },
});
