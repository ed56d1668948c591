/**
 * The shell commands a README shows under a heading: every line of the
 * ```sh fences in that section (up to the next heading of the same or a
 * higher level), with `# comments` and blank lines removed and a line that
 * ends in a backslash joined to the next, as the shell reads it. The README
 * commands test runs exactly these, so the README and the test cannot
 * drift apart.
 */

/** One command of a README, and where it was found. */
export interface ReadmeCommand {
  /** The heading of the section it is in, without the `#`s. */
  section: string;
  /** The command, its trailing comment and surrounding blanks removed. */
  command: string;
}

/** A line of a fenced block without its `# comment` (a `#` at the start or after a blank; none inside quotes). */
export function stripShellComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i).trim();
    }
  }
  return line.trim();
}

/**
 * The commands of the ```sh (or ```bash, ```shell) fences under each heading
 * in `sections`, in the README's order. A heading that is missing gives no
 * commands: the caller counts them.
 */
export function readmeCommands(markdown: string, sections: readonly string[]): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  let section: { title: string; level: number } | null = null;
  let fence: { marker: string; shell: boolean } | null = null;
  let continued = "";
  for (const line of markdown.split(/\r?\n/)) {
    if (fence !== null) {
      if (line.trim() === fence.marker) fence = null;
      else if (fence.shell && section !== null) {
        // A line ending in a backslash continues on the next, as in the shell.
        const command = `${continued}${stripShellComment(line)}`;
        if (command.endsWith("\\")) continued = `${command.slice(0, -1).trimEnd()} `;
        else {
          continued = "";
          if (command !== "") out.push({ section: section.title, command });
        }
      }
      continue;
    }
    const open = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (open) {
      fence = { marker: open[1]!, shell: ["sh", "bash", "shell"].includes(open[2]!) };
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      if (section !== null && level <= section.level) section = null;
      if (sections.includes(heading[2]!)) section = { title: heading[2]!, level };
    }
  }
  return out;
}
