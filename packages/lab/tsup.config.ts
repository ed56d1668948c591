import { defineConfig } from "tsup";

// @scanlab/pg-harness is a private workspace package (TypeScript source, not
// published): its cluster code is bundled into dist so @scanlab/lab installs
// on its own. Nothing of its types is part of this package's exports.
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  noExternal: ["@scanlab/pg-harness"],
});
