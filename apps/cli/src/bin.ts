#!/usr/bin/env node
/**
 * The `scanlab` executable: runs the command line and exits with its code.
 * `scanlab --version` alone is answered before commander and the commands
 * are loaded: it is the one call scripts make to check the install.
 */
import { guardStdio } from "./output/write-errors.js";
import { VERSION } from "./version.js";

// A closed pipe ends the output quietly; any other failed write on stdout or stderr is one sentence and exit 1.
guardStdio();

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import("./run.js");
  process.exitCode = await runCli(argv);
}
