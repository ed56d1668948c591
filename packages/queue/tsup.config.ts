import { defineConfig } from "tsup";

// The cell thread is its own file: the worker starts it with `new Worker(new URL("./cell-thread.js", import.meta.url))`.
export default defineConfig({
  entry: { index: "src/index.ts", testing: "src/testing.ts", "cell-thread": "src/cell-thread.ts" },
  format: ["esm"],
  target: "node20",
  dts: { entry: { index: "src/index.ts", testing: "src/testing.ts" } },
  sourcemap: true,
  clean: true,
  splitting: true,
});
