import { defineConfig } from "tsup";

// bin.js keeps its shebang (esbuild preserves it on an entry); sim-worker.js
// must sit next to the other files in dist/: workers/pool.ts starts it with
// new URL("./sim-worker.js", import.meta.url).
export default defineConfig({
  entry: { index: "src/index.ts", bin: "src/bin.ts", "sim-worker": "src/workers/sim-worker.ts" },
  format: ["esm"],
  target: "node20",
  dts: { entry: { index: "src/index.ts" } },
  sourcemap: true,
  clean: true,
  splitting: true,
});
