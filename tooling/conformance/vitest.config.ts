import { defineConfig } from "vitest/config";

// Offline replays of the committed fixtures: no PostgreSQL needed.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: ["src/**/*.live.test.ts"],
  },
});
