/** The layout checker itself, on a small planted tree: a back-arrow, a circle and a bypass are each reported. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkLayout, doorsFrom, folderOf, type Import, importsOf, layerOrder } from "./checker.ts";

const contributing = `
| Folder          | Concept |
| --------------- | ------- |
| \`src/errors\`  | errors  |
| \`src/client\`  | client  |
| \`src/cache\`   | cache   |
| \`controlplane/\` | not a src folder |
`;

const exports = {
  ".": { "kubeloop-source": "./src/index.ts" },
  "./client": { "kubeloop-source": "./src/client/index.ts" },
  "./cache": { "kubeloop-source": "./src/cache/index.ts" },
  "./errors": { "kubeloop-source": "./src/errors/index.ts" },
  "./api/*": { "kubeloop-source": "./src/api/*.ts" },
};
const isDoor = doorsFrom(exports);
const resolvePackage = (specifier: string) =>
  exports[specifier.replace(/^kubeloop/, ".") as keyof typeof exports]?.["kubeloop-source"].slice(2);

/** The imports of a planted tree, each file given as its source text. */
function planted(files: Record<string, string>): Import[] {
  return Object.entries(files).flatMap(([file, text]) => importsOf(file, text, resolvePackage));
}

const order = layerOrder(contributing);

describe("layout checker", () => {
  it("reads the layer order from the src rows of CONTRIBUTING.md's table, top first", () => {
    assert.deepEqual(order, ["errors", "client", "cache"]);
  });

  it("finds static, type-only, re-exporting and literal dynamic imports, with their lines", () => {
    const imports = planted({
      "src/cache/a.ts": [
        'import { x } from "../client/index.ts";',
        'import type { Y } from "../errors/index.ts";',
        'export { z } from "./b.ts";',
        'import { readFileSync } from "node:fs";',
        'const lazy = () => import("kubeloop/client");',
      ].join("\n"),
    });
    assert.deepEqual(
      imports.map((i) => `${i.line} ${i.target}`),
      ["1 src/client/index.ts", "2 src/errors/index.ts", "3 src/cache/b.ts", "5 src/client/index.ts"],
    );
  });

  it("reports a back-arrow, naming the file, line and import", () => {
    const report = checkLayout(
      planted({ "src/client/a.ts": '\nimport type { C } from "../cache/index.ts";' }),
      order,
      isDoor,
    );
    assert.equal(report.backArrows.length, 1);
    assert.match(
      report.backArrows[0] as string,
      /^src\/client\/a\.ts:2 imports "\.\.\/cache\/index\.ts": src\/cache sits below src\/client/,
    );
  });

  it("reports a circle across folders, with every import that closes it", () => {
    const report = checkLayout(
      planted({
        "src/client/a.ts": 'import { c } from "../cache/index.ts";',
        "src/cache/index.ts": 'export { b } from "./b.ts";',
        "src/cache/b.ts": 'import { a } from "../client/index.ts";',
        "src/errors/index.ts": "export const e = 1;",
      }),
      order,
      isDoor,
    );
    assert.deepEqual(report.circles, [
      'circle across src/cache, src/client: src/client/a.ts:1 imports "../cache/index.ts"; src/cache/b.ts:1 imports "../client/index.ts"',
    ]);
  });

  it("reports an import that bypasses a folder's index.ts, its internal/ included, and accepts exported doors", () => {
    const report = checkLayout(
      planted({
        "src/cache/a.ts": [
          'import { x } from "../client/http.ts";',
          'import { y } from "../client/internal/pool.ts";',
          'import { z } from "../client/index.ts";',
          'import { w } from "../api/core/v1.ts";',
          'import { v } from "../api/internal/hidden.ts";',
        ].join("\n"),
      }),
      [...order, "api"].reverse(),
      isDoor,
    );
    assert.deepEqual(
      report.bypasses.map((b) => b.split(" imports ")[0]),
      ["src/cache/a.ts:1", "src/cache/a.ts:2", "src/cache/a.ts:5"],
    );
    assert.match(
      report.bypasses[0] as string,
      /through the door of src\/client \(its index\.ts\), not src\/client\/http\.ts/,
    );
  });

  it("reports a src folder the table leaves out, and lets the root door import every folder", () => {
    const report = checkLayout(
      planted({
        "src/index.ts": 'export { c } from "./cache/index.ts";',
        "src/sharding/index.ts": 'import { e } from "../errors/index.ts";',
      }),
      order,
      isDoor,
    );
    assert.deepEqual(report.unlisted, ["sharding"]);
    assert.deepEqual(report.backArrows, []);
    assert.equal(folderOf("src/index.ts"), ".");
  });

  it("reports an import of the root door from a folder as a back-arrow", () => {
    const report = checkLayout(
      planted({ "src/cache/a.ts": 'import { k } from "../index.ts";' }),
      order,
      isDoor,
    );
    assert.equal(report.backArrows.length, 1);
  });
});
