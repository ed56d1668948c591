#!/usr/bin/env node
/**
 * The `scanlab` executable: runs the command line and exits with its code.
 */
import { runCli } from "./run.js";

// `scanlab ... | head`: a closed pipe ends the output, not the program with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
