/** The `--report DIR` directory: created if missing, refused if it cannot be written. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareOutputDir } from "../output-location.js";
import { renderSvg, svgToPng, type VegaLiteSpec } from "./render.js";

/**
 * Creates the report directory (and parents) after checking that files can
 * be written in it, and returns its absolute path (see output-location.ts).
 */
export function prepareReportDir(dir: string): string {
  return prepareOutputDir(dir, "--report");
}

/** Renders a chart and writes `<name>.svg` and `<name>.png`; returns the SVG. */
export async function writeChart(dir: string, name: string, spec: VegaLiteSpec): Promise<string> {
  const svg = await renderSvg(spec);
  writeFileSync(join(dir, `${name}.svg`), svg);
  writeFileSync(join(dir, `${name}.png`), await svgToPng(svg));
  writeFileSync(join(dir, `${name}.vl.json`), `${JSON.stringify(spec, null, 2)}\n`);
  return svg;
}
