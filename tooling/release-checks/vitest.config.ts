import { defineConfig } from "vitest/config";

// Each test here shells out (npm, TypeDoc, changesets) and some take tens of
// seconds on a shared 2-core machine: run the files one after another, in
// child processes (TypeDoc changes the working directory while it converts).
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/pack.global-setup.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
