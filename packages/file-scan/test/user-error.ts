/** Test helper: the error a promise rejects with, checked to be a user error of one sentence. */
import { expect } from "vitest";

export async function userError(
  p: Promise<unknown>,
): Promise<{ code: string; name: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: string; name: string; message: string; userError?: boolean };
    expect(err.userError).toBe(true);
    // One sentence: a single final full stop, no line breaks.
    expect(err.message).not.toMatch(/\n/);
    expect(err.message).toMatch(/[.]$/);
    return err;
  }
  throw new Error("expected a user error");
}
