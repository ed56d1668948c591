// Module resolve hook for start-up.test.ts: appends every bare specifier
// Node resolves to the file named by SCANLAB_IMPORT_LOG, one per line.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const log = process.env.SCANLAB_IMPORT_LOG;
  if (log && !specifier.startsWith(".") && !specifier.startsWith("/") && !specifier.startsWith("file:"))
    appendFileSync(log, `${specifier}\n`);
  return next(specifier, context);
}
