import { timeouts } from "@scanlab/test-config";
import { defineConfig } from "vitest/config";

// The site's tests live in test/ (src/ is the VitePress source tree). The
// browser test (playground.live.test.ts) loads the built site, which turbo
// builds first (test:live depends on build). Timeouts catch hangs only (see
// @scanlab/test-config).
export default defineConfig({
  test: {
    ...timeouts,
    include: ["test/**/*.test.ts"],
  },
});
