import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", sim: "src/sim.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
});
