import { defineConfig } from "tsup";

// worker.js must sit next to index.js in dist/: scan-workers.ts starts it with
// new URL("./worker.js", import.meta.url).
export default defineConfig({
  entry: { index: "src/index.ts", worker: "src/worker.ts" },
  format: ["esm"],
  target: "node20",
  dts: { entry: { index: "src/index.ts" } },
  sourcemap: true,
  clean: true,
  splitting: true,
});
