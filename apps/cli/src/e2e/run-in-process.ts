/**
 * Test helper: run the CLI in this process (`runCli`) with its output
 * captured, for commands that finish in a moment (parsing, --print-scenario).
 * Commands that use worker threads run the built CLI instead (run-bin.ts).
 */
import { Writable } from "node:stream";
import { runCli } from "../run.js";

class Capture extends Writable {
  text = "";
  isTTY = false;
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs `scanlab ARGS` without colour, 250 columns wide; resolves with its exit code and output. */
export async function runInProcess(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { streams: { stdout, stderr }, env: { NO_COLOR: "1", COLUMNS: "250" } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
