/**
 * Test helper: type-check `--json` documents against the exported types.
 *
 * Each document is written into a TypeScript file as
 * `export const doc: ScanlabJson<"simulate"> = <the JSON>;` and the files are
 * type-checked together, with the package's compiler options, by the
 * TypeScript compiler API. An object literal assigned to a type is checked
 * field by field, nested literals included: a missing field, a field of the
 * wrong type and a field the type does not have (excess property) are all
 * errors, so a document passes only if its exact shape is the type's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import type { ScanlabCommand } from "../json-output.js";
import { PKG } from "./run-bin.js";

/** One document to check: a name for messages, the command whose type it must have, and the JSON text. */
export interface JsonDocumentCase {
  name: string;
  command: ScanlabCommand;
  json: string;
}

/** Type-checks every document; returns the compiler's messages per case name (an empty list: the document has the type). */
export function typeCheckJson(cases: readonly JsonDocumentCase[]): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), "scanlab-json-types-"));
  try {
    const source = join(PKG, "src", "json-output.js");
    const files = cases.map((c, i) => {
      const file = join(dir, `case-${i}.ts`);
      writeFileSync(
        file,
        `import type { ScanlabJson } from ${JSON.stringify(source)};\n` +
          `export const doc: ScanlabJson<${JSON.stringify(c.command)}> = ${c.json.trim()};\n`,
      );
      return file;
    });
    const config = ts.getParsedCommandLineOfConfigFile(
      join(PKG, "tsconfig.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        },
      },
    );
    if (config === undefined) throw new Error(`cannot read ${join(PKG, "tsconfig.json")}`);
    const program = ts.createProgram({ rootNames: files, options: { ...config.options, noEmit: true } });
    const out = new Map<string, string[]>();
    files.forEach((file, i) => {
      const sf = program.getSourceFile(file)!;
      const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      out.set(
        cases[i]!.name,
        diagnostics.map((d) => {
          const at =
            d.start === undefined ? "" : `line ${sf.getLineAndCharacterOfPosition(d.start).line + 1}: `;
          return at + ts.flattenDiagnosticMessageText(d.messageText, "\n");
        }),
      );
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
