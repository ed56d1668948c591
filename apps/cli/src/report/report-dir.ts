/** The `--report DIR` directory: created if missing, refused if it is a file. */
import { constants, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { checkWritable } from "../options.js";
import { renderSvg, svgToPng, type VegaLiteSpec } from "./render.js";

/** Creates the report directory (and parents) and returns its absolute path. */
export function prepareReportDir(dir: string): string {
  if (dir.trim() === "") {
    throw new CliError("CLI_REPORT_DIR", "--report is empty: give a directory to write the report into.");
  }
  const abs = resolve(dir);
  try {
    if (statSync(abs).isDirectory()) {
      // Found out now, not after the simulations: the report is written at the end.
      checkWritable(
        abs,
        constants.W_OK | constants.X_OK,
        "CLI_REPORT_DIR",
        `--report ${dir}`,
        "give a writable directory",
      );
      return abs;
    }
    throw new CliError(
      "CLI_REPORT_DIR",
      `--report ${dir} is a file, not a directory: give a directory to write the report into.`,
    );
  } catch (e) {
    if ((e as { userError?: boolean }).userError) throw e;
  }
  try {
    mkdirSync(abs, { recursive: true });
  } catch (e) {
    throw new CliError(
      "CLI_REPORT_DIR",
      `--report ${dir} cannot be created (${(e as NodeJS.ErrnoException).code ?? String(e)}): give a writable directory.`,
    );
  }
  return abs;
}

/** Renders a chart and writes `<name>.svg` and `<name>.png`; returns the SVG. */
export async function writeChart(dir: string, name: string, spec: VegaLiteSpec): Promise<string> {
  const svg = await renderSvg(spec);
  writeFileSync(join(dir, `${name}.svg`), svg);
  writeFileSync(join(dir, `${name}.png`), await svgToPng(svg));
  writeFileSync(join(dir, `${name}.vl.json`), `${JSON.stringify(spec, null, 2)}\n`);
  return svg;
}
