/**
 * The layering of `src/`, from the code's own imports: no import runs back up CONTRIBUTING.md's
 * layout table (its row order is the layer order), no circle crosses folders, every folder is in
 * the table, and another folder is reached only through its door (`index.ts`, or a file
 * `package.json` exports). Each failure names the file, the line and the import to fix.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { checkRepository } from "./checker.ts";

const repository = join(fileURLToPath(import.meta.url), "../../../..");
const report = checkRepository(repository);

/** Fails with one line per finding (each names the file, line and import to fix), not a diff of arrays. */
function assertNone(findings: string[], what: string): void {
  assert.ok(findings.length === 0, `${findings.length} ${what}:\n${findings.join("\n")}`);
}

describe("layout of src/", () => {
  it("lists every src folder in CONTRIBUTING.md's table", () => {
    assertNone(
      report.unlisted.map(
        (f) => `src/${f}: add its row to CONTRIBUTING.md's layout table, below every folder it imports`,
      ),
      "src folders missing from CONTRIBUTING.md's table",
    );
  });

  it("has no import running back up CONTRIBUTING.md's table", () => {
    assertNone(report.backArrows, "imports running back up CONTRIBUTING.md's table");
  });

  it("has no circle across folders", () => {
    assertNone(report.circles, "circles across folders");
  });

  it("reaches another folder only through its door", () => {
    assertNone(report.bypasses, "imports bypassing a door");
  });
});
