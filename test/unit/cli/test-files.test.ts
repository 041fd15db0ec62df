import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { testFilesIn } from "../../../src/cli/test-files.ts";

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
