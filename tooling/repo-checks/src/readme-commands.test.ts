/**
 * The README parser of the README commands test (readme-commands.live.test.ts)
 * on small documents: which fences count, where a section ends, and what
 * counts as a comment.
 */
import { describe, expect, it } from "vitest";
import { readmeCommands, stripShellComment } from "./readme-commands.js";

const fence = (lang: string, ...lines: string[]) => [`\`\`\`${lang}`, ...lines, "```"].join("\n");

describe("readmeCommands", () => {
  const doc = [
    "# tool",
    fence("sh", "echo title"),
    "## Quick start",
    "Some prose with `npm run nothing` inline.",
    fence("sh", "npm run a   # the first", "", "npm test"),
    fence("ts", 'import { x } from "y";'),
    "### A subsection stays in its section",
    fence("bash", "npm run b \\", "  --flag 1"),
    "## Elsewhere",
    fence("sh", "npm run c"),
    "## Beyond",
    fence("console", "$ npm run d"),
    fence("shell", "npm run e --out my.json"),
  ].join("\n");

  it("takes the shell fences of the named sections only, in order, comments and blank lines removed", () => {
    expect(readmeCommands(doc, ["Quick start", "Beyond"])).toEqual([
      { section: "Quick start", command: "npm run a" },
      { section: "Quick start", command: "npm test" },
      { section: "Quick start", command: "npm run b --flag 1" },
      { section: "Beyond", command: "npm run e --out my.json" },
    ]);
  });

  it("gives nothing for a section that is not there", () => {
    expect(readmeCommands(doc, ["Install"])).toEqual([]);
  });

  it("a heading inside a fence is not a heading", () => {
    const md = ["## Quick start", fence("sh", "# a comment, not a heading", "npm run a"), "text"].join("\n");
    expect(readmeCommands(md, ["Quick start"])).toEqual([{ section: "Quick start", command: "npm run a" }]);
  });
});

describe("stripShellComment", () => {
  it.each([
    ["npm test            # lint and tests", "npm test"],
    ["# only a comment", ""],
    ["echo a#b", "echo a#b"],
    ["echo '# not a comment' # a comment", "echo '# not a comment'"],
    ['echo "x # y"', 'echo "x # y"'],
  ])("%s", (line, command) => {
    expect(stripShellComment(line)).toBe(command);
  });
});
