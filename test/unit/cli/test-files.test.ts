import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeTestArgs, testFilesIn } from "../../../src/cli/test-files.ts";

describe("kubeloop test: which files run", () => {
  it("runs every *.test.ts under the directory, nested ones too, sorted, never node_modules", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-test-files-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    for (const file of [
      "b.test.ts",
      "a.test.ts",
      "helpers.ts",
      "backup/restore.test.ts",
      "node_modules/x/y.test.ts",
    ]) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), "");
    }
    assert.deepEqual(
      testFilesIn(dir).map((f) => f.slice(dir.length + 1)),
      ["a.test.ts", "b.test.ts", "backup/restore.test.ts"],
    );
  });

  it("finds nothing in a directory that does not exist", () => {
    assert.deepEqual(testFilesIn(join(tmpdir(), "kubeloop-no-such-dir")), []);
  });
});

describe("kubeloop test: how node runs them", () => {
  it("reports a test's location as its line in the TypeScript source, not tsx's output", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-test-location-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    const file = join(dir, "located.test.ts");
    // Types and blank lines that tsx strips or moves: a location from its output is off.
    writeFileSync(
      file,
      [
        'import { it } from "node:test";',
        "interface Answer {",
        "  value: number;",
        "}",
        "const answer: Answer = { value: 41 };",
        "",
        'it("fails", () => {',
        '  if (answer.value !== 42) throw new Error("wrong");',
        "});",
        "",
      ].join("\n"),
    );
    // From the checkout, where tsx is installed, as a project runs it from its own root.
    const checkout = resolve(fileURLToPath(import.meta.url), "../../../..");
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, nodeTestArgs([file], ["--test-reporter=tap"]), {
      cwd: checkout,
      env,
      encoding: "utf8",
    });
    assert.match(run.stdout, /not ok 1 - fails/);
    assert.match(run.stdout, new RegExp(`location: '${file.replaceAll(".", "\\.")}:7:1'`), run.stdout);
  });
});
