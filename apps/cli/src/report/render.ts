/**
 * PNG copies of the report charts, only when asked for (`--png`): the SVG is
 * rasterised by resvg (`@resvg/resvg-js`, Rust, no browser, no canvas). It is
 * an optional peer dependency with prebuilt native binaries, so a plain
 * install of scanlab stays small; `--png` without it is refused before any
 * work, with the command that adds it.
 */
import { CliError } from "../errors.js";

/** The rasteriser's module. */
export type PngRenderer = typeof import("@resvg/resvg-js");

/** The command that adds the rasteriser. */
export const PNG_INSTALL = "npm install @resvg/resvg-js";

/** Loads the rasteriser, or refuses `--png` in one sentence. */
export async function loadPngRenderer(): Promise<PngRenderer> {
  try {
    return await import("@resvg/resvg-js");
  } catch {
    throw new CliError(
      "CLI_PNG_UNAVAILABLE",
      `--png needs the optional package @resvg/resvg-js, which is not installed: run "${PNG_INSTALL}" beside scanlab, or leave out --png (the SVG charts need nothing).`,
    );
  }
}

/** The rasteriser when `--png` is given with `--report`, else null; refuses `--png` alone in one sentence. Checked before any work. */
export async function pngRenderer(flags: { png?: boolean; report?: string }): Promise<PngRenderer | null> {
  if (flags.png !== true) return null;
  if (flags.report === undefined) {
    throw new CliError("CLI_CONFLICT", "--png writes the report's charts as PNG: give --report DIR too.");
  }
  return loadPngRenderer();
}

/** Rasterises an SVG to PNG at twice its size (for sharp images in documents). */
export function svgToPng(resvg: PngRenderer, svg: string): Uint8Array {
  const r = new resvg.Resvg(svg, {
    fitTo: { mode: "zoom", value: 2 },
    background: "white",
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return r.render().asPng();
}
