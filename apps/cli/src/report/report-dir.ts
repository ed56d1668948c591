/** The `--report DIR` directory and the charts written into it. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareOutputDir } from "../output-location.js";
import { type PngRenderer, svgToPng } from "./render.js";

/**
 * Creates the report directory (and parents) after checking that files can
 * be written in it, and returns its absolute path (see output-location.ts).
 */
export function prepareReportDir(dir: string): string {
  return prepareOutputDir(dir, "--report");
}

/** Writes `<name>.svg`, and `<name>.png` when a rasteriser is given (`--png`); returns the SVG. */
export function writeChart(dir: string, name: string, svg: string, png: PngRenderer | null): string {
  writeFileSync(join(dir, `${name}.svg`), svg);
  if (png !== null) writeFileSync(join(dir, `${name}.png`), svgToPng(png, svg));
  return svg;
}
