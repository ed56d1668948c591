#!/usr/bin/env node
/**
 * The `scanlab` executable: runs the command line and exits with its code.
 */
import { runCli } from "./run.js";

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
