/**
 * Runs TypeDoc the way `npm run docs` does (the root typedoc.json: packages
 * mode, validation on, `packagesRequiringDocumentation` = every published
 * package), but in-process and without rendering HTML, and keeps what the
 * release checks need: the JSON model of the documented API and every
 * warning and error TypeDoc logged, validation warnings included.
 */
import { join, relative } from "node:path";
import type { JSONOutput, MinimalNode, MinimalSourceFile } from "typedoc";
import {
  Application,
  Logger,
  LogLevel,
  normalizePath,
  type ProjectReflection,
  TSConfigReader,
  TypeDocReader,
} from "typedoc";
import { repoRoot } from "./workspace.js";

/** A message TypeDoc logged. */
export interface LoggedMessage {
  level: "warning" | "error";
  text: string;
}

/** Records instead of printing; a message about a source position starts with `file:line:column - `. */
class RecordingLogger extends Logger {
  readonly messages: LoggedMessage[] = [];

  protected override addContext(
    message: string,
    _level: Exclude<LogLevel, LogLevel.None>,
    ...args: [MinimalNode?] | [number, MinimalSourceFile]
  ): string {
    const [first, second] = args;
    if (first === undefined) return message;
    const [pos, file] =
      typeof first === "number" ? [first, second!] : [first.getStart(), first.getSourceFile()];
    const { line, character } = file.getLineAndCharacterOfPosition(pos);
    return `${relative(repoRoot, file.fileName)}:${line + 1}:${character} - ${message}`;
  }

  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    if (level === LogLevel.Warn || level === LogLevel.Error) {
      // Strip colours: messages are compared as text.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes
      const text = message.replace(/\u001b\[[0-9;]*m/g, "");
      this.messages.push({ level: level === LogLevel.Warn ? "warning" : "error", text });
    }
  }
}

/** The result of one TypeDoc run over the workspace. */
export interface TypeDocRun {
  json: JSONOutput.ProjectReflection | undefined;
  messages: LoggedMessage[];
  /** The options TypeDoc read from the root typedoc.json. */
  packagesRequiringDocumentation: string[];
  entryPoints: string[];
}

export async function runTypeDoc(): Promise<TypeDocRun> {
  const app = await Application.bootstrapWithPlugins({ options: join(repoRoot, "typedoc.json") }, [
    new TypeDocReader(),
    new TSConfigReader(),
  ]);
  const logger = new RecordingLogger();
  app.logger = logger;
  let project: ProjectReflection | undefined;
  const cwd = process.cwd();
  // TypeDoc resolves package folders and prints paths relative to the working directory.
  process.chdir(repoRoot);
  try {
    project = await app.convert();
    if (project) app.validate(project);
  } finally {
    process.chdir(cwd);
  }
  return {
    json: project ? app.serializer.projectToObject(project, normalizePath(repoRoot)) : undefined,
    messages: logger.messages,
    packagesRequiringDocumentation: app.options.getValue("packagesRequiringDocumentation"),
    entryPoints: app.options.getValue("entryPoints"),
  };
}
