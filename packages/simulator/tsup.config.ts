import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  // The scenario file's JSON Schema, generated from the built zod schema.
  onSuccess: "node scripts/write-scenario-schema.mjs",
});
