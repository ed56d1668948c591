/**
 * The seam rule on small sources: every form of import of a `@scanlab/*`
 * package by an engine file outside `seam/` is caught; the seam itself,
 * relative imports, other packages, files outside the engine and comments
 * pass.
 */
import { describe, expect, it } from "vitest";
import { findSeamBreaches, outsideSeam } from "./engine-seam.js";

const PG = "packages/simulator/src/engine/pg/x.ts";
const specifiers = (text: string, path = PG): string[] =>
  findSeamBreaches([{ path, text }]).map((b) => b.specifier);

describe("findSeamBreaches catches, outside seam/", () => {
  it("import and export ... from, of a value or a type, on one line or several", () => {
    expect(specifiers('import { ReadStream } from "@scanlab/bitmap-prefetch";')).toEqual([
      "@scanlab/bitmap-prefetch",
    ]);
    expect(specifiers("import type { OpenFile } from '@scanlab/readahead';")).toEqual(["@scanlab/readahead"]);
    expect(specifiers('import {\n  a,\n  b,\n} from "@scanlab/core";')).toEqual(["@scanlab/core"]);
    expect(specifiers('export { x } from "@scanlab/syncscan";\nexport * from "@scanlab/core/sim";')).toEqual([
      "@scanlab/syncscan",
      "@scanlab/core/sim",
    ]);
  });

  it("a bare import, import(), typeof import(), require() and vi.mock()", () => {
    expect(
      specifiers(
        [
          'import "@scanlab/a";',
          'const m = await import("@scanlab/b");',
          'type T = typeof import("@scanlab/c");',
          'const r = require("@scanlab/d");',
          'vi.mock("@scanlab/e", () => ({}));',
        ].join("\n"),
      ),
    ).toEqual(["@scanlab/a", "@scanlab/b", "@scanlab/c", "@scanlab/d", "@scanlab/e"]);
  });

  it("in every folder of the engine but seam/, tests included, with the line of each", () => {
    const text = 'import { x } from "./y.js";\nimport { z } from "@scanlab/core";';
    for (const dir of ["loop", "pg", "speedups"]) {
      const path = `packages/simulator/src/engine/${dir}/a.test.ts`;
      expect(findSeamBreaches([{ path, text }])).toEqual([{ path, line: 2, specifier: "@scanlab/core" }]);
    }
    expect(specifiers(text, "packages/simulator/src/engine/top-level.ts")).toEqual(["@scanlab/core"]);
  });
});

describe("findSeamBreaches lets through", () => {
  it("the seam itself, and files outside the engine", () => {
    const text = 'import { ReadStream } from "@scanlab/bitmap-prefetch";';
    expect(specifiers(text, "packages/simulator/src/engine/seam/adapters.ts")).toEqual([]);
    expect(specifiers(text, "packages/simulator/src/engine/seam/nested/x.ts")).toEqual([]);
    expect(specifiers(text, "packages/simulator/src/scenario/resolve.ts")).toEqual([]);
    expect(specifiers(text, "packages/experiments/src/engine/x.ts")).toEqual([]);
  });

  it("relative imports, the seam's own modules, other packages", () => {
    expect(
      specifiers(
        [
          'import { realModels } from "../seam/adapters.js";',
          'import { describe } from "vitest";',
          'import { z } from "zod";',
          'import { scanlab } from "scanlab-other";',
        ].join("\n"),
      ),
    ).toEqual([]);
  });

  it("comments, such as a doc comment's example of how callers import the package", () => {
    expect(
      specifiers(
        [
          "/**",
          ' * import { simulate } from "@scanlab/simulator";',
          " */",
          '// import { x } from "@scanlab/core";',
          '/* import "@scanlab/core"; */',
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});

describe("outsideSeam", () => {
  it("is true under the engine but not under seam/ (also with Windows separators)", () => {
    expect(outsideSeam("packages/simulator/src/engine/loop/simulate.ts")).toBe(true);
    expect(outsideSeam("packages\\simulator\\src\\engine\\pg\\participants.ts")).toBe(true);
    expect(outsideSeam("packages/simulator/src/engine/seam/ports.ts")).toBe(false);
    expect(outsideSeam("packages/simulator/src/engines/x.ts")).toBe(false);
  });
});
