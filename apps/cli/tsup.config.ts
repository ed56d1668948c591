import { defineConfig } from "tsup";

// bin.js keeps its shebang (esbuild preserves it on an entry); sim-worker.js
// must sit next to the other files in dist/: workers/pool.ts starts it with
// new URL("./sim-worker.js", import.meta.url). @scanlab/queue is installed
// beside scanlab by those who use --queue (commands/queue-run.ts): it stays an
// import, never bundled, like the dependencies tsup leaves external. No source
// maps: the CLI is run, not debugged from its install, and its maps were 0.4 MB
// of a 15 MB install budget (the libraries it depends on keep theirs).
export default defineConfig({
  entry: { index: "src/index.ts", bin: "src/bin.ts", "sim-worker": "src/workers/sim-worker.ts" },
  format: ["esm"],
  target: "node20",
  dts: { entry: { index: "src/index.ts" } },
  sourcemap: false,
  clean: true,
  splitting: true,
  external: ["@scanlab/queue"],
});
