/**
 * Citations that resolve inside the repository.
 *
 * The problem: a comment that cites a document the repository does not ship
 * sends the reader nowhere, and TypeDoc turns such names into dead links. The
 * four reference documents scanlab was first written from (named postgres,
 * readahead, devices and targets, each with the `.md` extension), the design
 * note (DESIGN with `.md`), section signs without a document, and the seed
 * files ("seed", a space or hyphen, and a zero-padded number) all stay outside the
 * repository. Their content now lives in the docs app's reference pages,
 * `apps/docs/src/reference/`, and code cites a page by its path and the anchor
 * of a heading.
 *
 * The insight: a citation of a page is checkable the way a link is. The path
 * must name a Markdown page of the docs app, and the anchor must be one that
 * VitePress gives a heading of that page. So the check computes the anchors
 * exactly as VitePress 1.6 does (its `slugify`, the de-duplicating suffixes of
 * markdown-it-anchor, explicit `{#id}` attributes), and `apps/docs` holds this
 * computation to VitePress's own renderer over every page it has.
 *
 * Design choices:
 * - The whole text of a file is searched, not only its comments: a retired
 *   name in a string (a profile's `sources`, a report's assumptions) ships in
 *   the npm tarball just the same.
 * - Citations of the docs app are recognised in two forms: a path from the
 *   repository root (`apps/docs/src/<page>.md#<anchor>`, the form for code and
 *   READMEs) and Markdown links that lead into `apps/docs/src` (in the docs
 *   pages also `/reference/page#anchor` and `#anchor`, which VitePress
 *   resolves). Links into generated output (`/api/`) and to files that are not
 *   pages (figures) are not citations.
 * - Everything is a pure function of the texts except {@link checkRepositoryCitations},
 *   which walks folders of a checkout, so the rules are tested on small
 *   fixture strings.
 * - Anchors inside fragments a page includes at build time
 *   (`<!--@include: ...-->`) are not visible in the page's source; a citation
 *   of one fails. Cite a heading of the page itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";

/** Where the docs app's VitePress pages live, relative to the repository root. */
export const DOCS_SRC = "apps/docs/src";

/** What kind of problem a citation has. */
export type CitationProblemKind =
  /** Names one of the reference documents or the design note that do not ship. */
  | "retired-document"
  /** A section sign and number with no document (the numbering of a document that does not ship). */
  | "bare-section"
  /** Names a seed file ("seed" and a zero-padded number) that does not ship. */
  | "seed"
  /** Cites a page of the docs app that does not exist. */
  | "dead-page"
  /** Cites an anchor that no heading of the page has. */
  | "dead-anchor";

/** One citation that does not resolve. */
export interface CitationProblem {
  /** The file, relative to the repository root, with `/` separators. */
  file: string;
  /** 1-based line of the citation's first character. */
  line: number;
  kind: CitationProblemKind;
  /** The text that was matched. */
  text: string;
  /** One sentence saying what is wrong. */
  message: string;
}

/** A citation of a page of the docs app, found in a file. */
export interface PageCitation {
  /** 1-based line. */
  line: number;
  /** The text as written. */
  text: string;
  /** The cited page, relative to the repository root (`apps/docs/src/...md`). */
  page: string;
  /** The anchor without `#`, or null when the whole page is cited. */
  anchor: string | null;
}

/**
 * VitePress 1.6's heading slug (`slugify` in vitepress/dist/node): NFKD,
 * combining marks and control characters dropped, every run of whitespace and
 * ASCII punctuation (and typographic quotes) turned into one `-`, hyphens
 * trimmed, a leading digit prefixed with `_`, then lower case. Other characters
 * (letters of any script, symbols such as `≤`) are kept.
 *
 * @example
 * slugify("Sync path up to 6.9"); // "sync-path-up-to-6-9"
 * slugify("T7: effective_io_concurrency on SATA SSDs"); // "t7-effective-io-concurrency-on-sata-ssds"
 */
export function slugify(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036F]/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: VitePress's slugify drops control characters too.
      .replace(/[\u0000-\u001f]/g, "")
      .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'\u201c\u201d\u2018\u2019<>,.?/]+/g, "-")
      .replace(/-{2,}/g, "-")
      .replace(/^-+|-+$/g, "")
      .replace(/^(\d)/, "_$1")
      .toLowerCase()
  );
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/**
 * The text markdown-it-anchor slugs for a heading's inline Markdown: the
 * content of text and code spans, without images, link targets or HTML tags.
 * Emphasis markers are left in: `*` and `_` are separators to the slug anyway,
 * so they change nothing except in intraword `*` emphasis (`a*b*c`), which no
 * heading here uses.
 */
export function headingText(inline: string): string {
  const codeSpans: string[] = [];
  let s = inline.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => {
    codeSpans.push(code.length > 2 && code.startsWith(" ") && code.endsWith(" ") ? code.slice(1, -1) : code);
    return `\uE000${codeSpans.length - 1}\uE000`; // private-use marks: a code span's place, kept from the rules below
  });
  s = s
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/<\/?[A-Za-z][^>]*>/g, "")
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replace(/&(#x?[0-9a-fA-F]+|[A-Za-z]+);/g, (m, name: string) => {
      if (name.startsWith("#x") || name.startsWith("#X"))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
      return ENTITIES[name] ?? m;
    });
  return s.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => codeSpans[Number(i)]!).trim();
}

/** Lines of a Markdown text with fenced code blocks and front matter blanked (so line numbers stay). */
function proseLines(markdown: string): string[] {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | null = null;
  let frontMatter = lines[0]?.trim() === "---";
  for (const [i, line] of lines.entries()) {
    if (frontMatter) {
      out.push("");
      if (i > 0 && line.trim() === "---") frontMatter = false;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) {
      fence = open[1]!;
      out.push("");
      continue;
    }
    if (fence !== null) {
      if (new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`).test(line))
        fence = null;
      out.push("");
      continue;
    }
    out.push(line);
  }
  return out;
}

/**
 * Every anchor VitePress gives the headings of a Markdown page, in order:
 * ATX (`## Title`) and setext headings of every level, an explicit
 * `{#custom-id}` when a heading has one, and `-1`, `-2`, ... appended to a
 * slug already taken (markdown-it-anchor's rule). Fenced code and front
 * matter are skipped.
 *
 * @example
 * headingAnchors("# A\n\n## Setup\n\n## Setup\n"); // ["a", "setup", "setup-1"]
 */
export function headingAnchors(markdown: string): string[] {
  const lines = proseLines(markdown);
  const headings: string[] = [];
  for (const [i, line] of lines.entries()) {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      headings.push(atx[1] ?? "");
      continue;
    }
    // A setext heading: an underline right under a line of paragraph text.
    const prev = lines[i - 1];
    if (
      /^ {0,3}(=+|-+)[ \t]*$/.test(line) &&
      prev !== undefined &&
      prev.trim() !== "" &&
      !/^ {0,3}(#{1,6}(\s|$)|[-*+]\s|\d+[.)]\s|>|\||<|(=+|-+)[ \t]*$)/.test(prev)
    ) {
      headings.push(prev.trim());
    }
  }
  const taken = new Set<string>();
  const anchors: string[] = [];
  for (const raw of headings) {
    const attrs = /\s*\{([^{}]*)\}\s*$/.exec(raw);
    const explicit = attrs ? /(?:^|\s)#([^\s}]+)/.exec(attrs[1]!) : null;
    if (explicit) {
      taken.add(explicit[1]!);
      anchors.push(explicit[1]!);
      continue;
    }
    const base = slugify(headingText(attrs ? raw.slice(0, attrs.index) : raw));
    let slug = base;
    for (let n = 1; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    anchors.push(slug);
  }
  return anchors;
}

/** 1-based line of an offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Comment continuation between two lines: a newline, indentation and a `*`, `//` or `#` marker. */
const WRAP = String.raw`(?:\s*\n[ \t]*(?:\*(?!/)|//|#)?)?\s*`;
const SECTION = String.raw`\d+(?:\.\d+)*(?:\s?[A-C]\b)?`;
const RETIRED = new RegExp(
  String.raw`(?<![\w-])(?:[\w.-]+/)*(?:(?:postgres|readahead|devices|targets)\.md|DESIGN\.md)(?![\w-])` +
    String.raw`(?:\`?[,:]?${WRAP}(?:\u00a7\s?|sections?\s+)?${SECTION}(?:(?:,\s*|\s+and\s+|\s*-\s*)(?:\u00a7\s?)?${SECTION})*)?`,
  "g",
);
const SECTION_SIGN = /\u00a7\s?\d+(?:\.\d+)*/g;
const SEED = /\b[Ss]eeds?(?:\s+|-)0\d\d\b(?:\s+and\s+0\d\d\b)?/g;

/**
 * Mentions of what does not ship: the retired reference documents and the
 * design note (with the section numbers that follow them), section signs with
 * a number and no document, and seed files.
 *
 * @example
 * findRetiredCitations("see the design note, \u00a73").map((p) => p.kind); // ["bare-section"]
 */
export function findRetiredCitations(text: string, file = ""): CitationProblem[] {
  const problems: CitationProblem[] = [];
  const covered: [number, number][] = [];
  for (const m of text.matchAll(RETIRED)) {
    covered.push([m.index, m.index + m[0].length]);
    problems.push({
      file,
      line: lineAt(text, m.index),
      kind: "retired-document",
      text: m[0],
      message: `"${oneLine(m[0])}" names a document that does not ship: cite a page of ${DOCS_SRC}/reference/ by path and anchor, or a primary source.`,
    });
  }
  for (const m of text.matchAll(SECTION_SIGN)) {
    if (covered.some(([a, b]) => m.index >= a && m.index < b)) continue;
    problems.push({
      file,
      line: lineAt(text, m.index),
      kind: "bare-section",
      text: m[0],
      message: `"${m[0]}" is a section number without a document: cite a page of ${DOCS_SRC}/reference/ by path and anchor, or name the source.`,
    });
  }
  for (const m of text.matchAll(SEED)) {
    problems.push({
      file,
      line: lineAt(text, m.index),
      kind: "seed",
      text: m[0],
      message: `"${m[0]}" names a seed file that does not ship: cite the published message (${DOCS_SRC}/reference/experiments.md has each one).`,
    });
  }
  return problems.sort((a, b) => a.line - b.line);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ");
}

/** Normalises `a/./b/../c` to `a/c` with `/` separators. */
function normalize(path: string): string {
  return posix.normalize(path.split(sep).join("/"));
}

const PATH_CITATION = /(?<![\w./-])((?:apps\/docs\/src\/)[\w./-]*?[\w-]+\.md)(?:#([\w-]+))?(?![\w/-])/g;
const MD_LINK = /(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;

/**
 * Citations of docs pages in a file: paths from the repository root
 * (`apps/docs/src/reference/linux-readahead-window.md#sizing-functions`) anywhere,
 * and in Markdown files, links that resolve into `apps/docs/src` (relative
 * links from any Markdown file; site-absolute links and bare `#anchor` links
 * from the docs pages themselves). `file` is the file's path relative to the
 * repository root.
 */
export function findPageCitations(text: string, file: string): PageCitation[] {
  const found: PageCitation[] = [];
  for (const m of text.matchAll(PATH_CITATION)) {
    found.push({ line: lineAt(text, m.index), text: m[0], page: normalize(m[1]!), anchor: m[2] ?? null });
  }
  const path = normalize(file);
  if (path.endsWith(".md")) {
    const prose = proseLines(text).join("\n");
    for (const m of prose.matchAll(MD_LINK)) {
      const page = linkedPage(m[1]!, path);
      if (page === null) continue;
      found.push({ line: lineAt(prose, m.index), text: m[0], page: page.page, anchor: page.anchor });
    }
  }
  return found;
}

/**
 * The docs page a Markdown link points to, or null when it is not one: an
 * external URL, a link that leaves `apps/docs/src`, an anchor of a page
 * outside it, generated API pages, or a file that is not a page.
 */
function linkedPage(target: string, from: string): { page: string; anchor: string | null } | null {
  if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return null;
  const inDocs = from.startsWith(`${DOCS_SRC}/`);
  const hash = target.indexOf("#");
  const pathPart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? null : safeDecode(target.slice(hash + 1)) || null;
  if (pathPart === "") return inDocs ? { page: from, anchor } : null;
  const clean = pathPart.split("?")[0]!;
  if (clean.startsWith("/") && !inDocs) return null; // site-absolute only means something inside the site
  let resolved = clean.startsWith("/")
    ? normalize(`${DOCS_SRC}${clean}`)
    : normalize(posix.join(posix.dirname(from), safeDecode(clean)));
  if (!resolved.startsWith(`${DOCS_SRC}/`)) return null;
  if (resolved.startsWith(`${DOCS_SRC}/api/`) || resolved === `${DOCS_SRC}/api`) return null;
  if (resolved.endsWith("/")) resolved += "index.md";
  else if (resolved.endsWith(".html")) resolved = `${resolved.slice(0, -5)}.md`;
  else if (!resolved.endsWith(".md")) {
    if (/\.[A-Za-z0-9]+$/.test(posix.basename(resolved))) return null; // an asset (figure, JSON), not a page
    resolved += ".md";
  }
  return { page: resolved, anchor };
}

/**
 * Checks the files' citations: nothing names what does not ship, and every
 * citation of a docs page names a page that `readPage` finds and an anchor one
 * of its headings has. `readPage` takes a path relative to the repository root
 * and returns the page's Markdown, or undefined when there is no such file.
 *
 * @example
 * const pages = { "apps/docs/src/reference/linux-readahead-window.md": "# Linux\n\n## Sizing functions\n" };
 * checkCitations(
 *   [{ path: "src/x.ts", text: "// apps/docs/src/reference/linux-readahead-window.md#sizing-functions" }],
 *   (p) => pages[p as keyof typeof pages],
 * ); // []
 */
export function checkCitations(
  files: readonly { path: string; text: string }[],
  readPage: (path: string) => string | undefined,
): CitationProblem[] {
  const anchorsOf = new Map<string, Set<string> | null>();
  const anchors = (page: string): Set<string> | null => {
    if (!anchorsOf.has(page)) {
      const md = readPage(page);
      anchorsOf.set(page, md === undefined ? null : new Set(headingAnchors(md)));
    }
    return anchorsOf.get(page)!;
  };
  const problems: CitationProblem[] = [];
  for (const { path, text } of files) {
    const file = normalize(path);
    problems.push(...findRetiredCitations(text, file));
    for (const c of findPageCitations(text, file)) {
      const known = anchors(c.page);
      if (known === null) {
        problems.push({
          file,
          line: c.line,
          kind: "dead-page",
          text: c.text,
          message: `"${c.text}" cites ${c.page}, which does not exist.`,
        });
      } else if (c.anchor !== null && !known.has(c.anchor)) {
        problems.push({
          file,
          line: c.line,
          kind: "dead-anchor",
          text: c.text,
          message: `"${c.text}" cites #${c.anchor}, which no heading of ${c.page} has.`,
        });
      }
    }
  }
  return problems;
}

/** File extensions whose text is searched for citations. */
export const CITING_EXTENSIONS = [
  ".ts",
  ".tsx",
  ".mts",
  ".js",
  ".mjs",
  ".cjs",
  ".vue",
  ".md",
  ".json",
] as const;

/** Folders never searched: dependencies, build output, coverage reports. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", "docs-dist", "coverage"]);

/** Every file under `dir` (absolute) with one of the extensions, skipping dependencies and build output. */
function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (SKIPPED_FOLDERS.has(name) || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (CITING_EXTENSIONS.some((ext) => name.endsWith(ext))) out.push(full);
  }
}

/**
 * {@link checkCitations} over the files of a checkout: every file with a
 * {@link CITING_EXTENSIONS} extension under each of `scopes` (folders or
 * files relative to `root`), pages read from the same checkout.
 */
export function checkRepositoryCitations(root: string, scopes: readonly string[]): CitationProblem[] {
  const paths: string[] = [];
  for (const scope of scopes) {
    const full = join(root, scope);
    if (statSync(full).isDirectory()) walk(full, paths);
    else paths.push(full);
  }
  const files = paths.map((p) => ({ path: relative(root, p), text: readFileSync(p, "utf8") }));
  return checkCitations(files, (page) => {
    try {
      return readFileSync(join(root, page), "utf8");
    } catch {
      return undefined;
    }
  });
}
