/**
 * The helpers of the install test pick the right block and really check it:
 * a README's first ```ts block (not a ```sh one before it), types removed
 * without touching the code, and a type error reported (so a passing
 * install test means the example compiled, not that nothing was checked).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { firstTsExample, stripTypes, typeErrors } from "./readme-example.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-readme-example-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("firstTsExample", () => {
  it("takes the first ```ts block, skipping other languages", () => {
    const md =
      "# x\n\n```sh\nnpm i x\n```\n\ntext\n\n```ts\nconst a: number = 1;\n```\n\n```ts\nsecond();\n```\n";
    expect(firstTsExample(md)).toBe("const a: number = 1;\n");
  });

  it("accepts ```typescript and longer fences, and says when there is none", () => {
    expect(firstTsExample("````typescript\nlet b = 2;\n````\n")).toBe("let b = 2;\n");
    expect(firstTsExample("```js\nx()\n```\n")).toBeUndefined();
  });
});

describe("stripTypes", () => {
  it("removes type annotations and type-only imports, keeps the rest", () => {
    const js = stripTypes(
      'import type { A } from "a";\nimport { b } from "b";\nconst n: number = b as number;\nconsole.log(n);\n',
    );
    expect(js).not.toContain("import type");
    expect(js).toContain('import { b } from "b";');
    expect(js).toContain("const n = b;");
  });
});

describe("typeErrors", () => {
  it("reports a type error and an unresolved package, and nothing for correct code", () => {
    const bad = join(dir, "bad.ts");
    writeFileSync(
      bad,
      'import { nope } from "@scanlab/not-installed";\nconst n: number = "text";\nconsole.log(n, nope);\n',
    );
    const errors = typeErrors(bad).join("\n");
    expect(errors).toContain("TS2307"); // cannot find module
    expect(errors).toContain("TS2322"); // string is not assignable to number
    const good = join(dir, "good.ts");
    writeFileSync(
      good,
      'import { readFileSync } from "node:fs";\nconst n: number = readFileSync.length;\nconsole.log(n);\n',
    );
    expect(typeErrors(good)).toEqual([]);
  });
});
