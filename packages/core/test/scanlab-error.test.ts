import { describe, expect, it } from "vitest";
import { errorClause, ScanlabError } from "../src/scanlab-error.js";

class ExampleError extends ScanlabError {
  declare readonly code: "EXAMPLE_BAD";
  constructor(message: string) {
    super(message, { code: "EXAMPLE_BAD" });
    this.name = "ExampleError";
  }
}

describe("ScanlabError", () => {
  it("carries a code, a kind and the userError brand derived from the kind", () => {
    const e = new ScanlabError("bad.", { code: "X" });
    expect([e.code, e.kind, e.userError, e.name, e.message]).toEqual([
      "X",
      "user",
      true,
      "ScanlabError",
      "bad.",
    ]);
    const i = new ScanlabError("broken.", { code: "Y", kind: "internal" });
    expect([i.kind, i.userError]).toEqual(["internal", false]);
  });

  it("keeps a subclass's name and is recognised by isInstance", () => {
    const e = new ExampleError("bad example.");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("ExampleError");
    expect(ScanlabError.isInstance(e)).toBe(true);
  });

  it("recognises an error from another copy of the package by its registered symbol", () => {
    const foreign = Object.assign(new Error("from another copy."), { [Symbol.for("scanlab.error")]: true });
    expect(ScanlabError.isInstance(foreign)).toBe(true);
  });

  it("does not accept duck-typed look-alikes or non-objects", () => {
    expect(ScanlabError.isInstance({ userError: true, code: "X" })).toBe(false);
    expect(ScanlabError.isInstance(new Error("plain"))).toBe(false);
    expect(ScanlabError.isInstance(null)).toBe(false);
    expect(ScanlabError.isInstance("ScanlabError")).toBe(false);
  });

  it("keeps the cause", () => {
    const cause = new Error("root");
    expect(new ScanlabError("wrapped.", { code: "Z", cause }).cause).toBe(cause);
  });
});

describe("errorClause", () => {
  it("keeps the first line of a message, without trailing punctuation", () => {
    expect(errorClause(new Error("ENOENT: no such file or directory, open 'x'.\n    at open"))).toBe(
      "ENOENT: no such file or directory, open 'x'",
    );
    expect(errorClause("fio: bad option;  \n")).toBe("fio: bad option");
    expect(errorClause({ message: 42 })).toBe("42");
    expect(errorClause(null)).toBe("null");
  });
});
