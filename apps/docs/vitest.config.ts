import { defineConfig } from "vitest/config";

// The site's tests live in test/ (src/ is the VitePress source tree). The
// browser test loads the built site, which turbo builds first (test depends
// on build).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
