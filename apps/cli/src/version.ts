/** The version of the scanlab package (from its package.json, inlined at build time). */
import pkg from "../package.json" with { type: "json" };

/** scanlab's version, as `scanlab --version` prints it. */
export const VERSION: string = pkg.version;
