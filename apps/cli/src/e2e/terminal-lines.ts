/**
 * Reading a command's text output as a terminal 80 columns wide shows it:
 * helpers of the terminal-width tests.
 */
import { expect } from "vitest";

/** Columns a line without colour takes on a terminal: one a character. */
export const columns = (line: string) => [...line].length;

/** The lines of a run's output, each checked to fit 80 columns and to carry no colour. */
export function fitted80(stdout: string): string[] {
  expect(stdout).not.toContain("\u001b");
  const lines = stdout.trimEnd().split("\n");
  for (const line of lines) expect(columns(line), line).toBeLessThanOrEqual(80);
  return lines;
}

/** The cells after the first of every table line that starts with the cell `name`, across split tables, trimmed. */
export function rowCells(lines: readonly string[], name: string): string[] {
  return lines
    .filter((l) => l.startsWith(`│ ${name} `))
    .flatMap((l) =>
      l
        .split("│")
        .slice(2, -1)
        .map((x) => x.trim()),
    );
}
