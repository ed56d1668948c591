/**
 * Tables (cli-table3) without cli-table3's own colours: headers are bold only
 * when colour is on, so NO_COLOR and pipes get plain text.
 */
import Table from "cli-table3";
import type { Ctx } from "../context.js";

/** Column alignment. */
export type Align = "left" | "right" | "center";

/** Renders a table as text. */
export function renderTable(ctx: Ctx, head: string[], rows: (string | number)[][], align?: Align[]): string {
  const t = new Table({
    head: head.map((h) => ctx.c.bold(h)),
    style: { head: [], border: [], compact: false },
    colAligns: align ?? head.map((_, i) => (i === 0 ? "left" : "right")),
    wordWrap: false,
    // No rule between body rows: compact tables that still line up.
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
  });
  for (const r of rows) t.push(r.map((x) => (typeof x === "number" ? String(x) : x)));
  return t.toString();
}
