#!/usr/bin/env node
/**
 * The `scanlab` executable: runs the command line and exits with its code.
 */
import { guardStdio } from "./output/write-errors.js";
import { runCli } from "./run.js";

// A closed pipe ends the output quietly; any other failed write on stdout or stderr is one sentence and exit 1.
guardStdio();

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
