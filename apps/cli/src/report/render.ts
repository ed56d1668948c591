/**
 * Charts without a browser: a vega-lite spec is compiled to vega, rendered
 * to SVG by vega's headless View (`renderer: "none"`, text measured by
 * vega's estimate since no canvas is installed), and the SVG is rasterised
 * to PNG by resvg (Rust, no browser, no native canvas). vega and resvg load
 * only when a report is asked for: they are large and most runs do not need them.
 */

/** A vega-lite specification (the subset scanlab writes). */
export type VegaLiteSpec = Record<string, unknown>;

/** Renders a vega-lite spec to an SVG string. */
export async function renderSvg(spec: VegaLiteSpec): Promise<string> {
  const [vega, vl] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = vl.compile(spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Rasterises an SVG to PNG at twice its size (for sharp images in documents). */
export async function svgToPng(svg: string): Promise<Uint8Array> {
  const { Resvg } = await import("@resvg/resvg-js");
  const r = new Resvg(svg, {
    fitTo: { mode: "zoom", value: 2 },
    background: "white",
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return r.render().asPng();
}
