/**
 * CONTRIBUTING's size rule, from the hand-written sources (`src/`, not the generated `src/api`):
 * no file over 600 lines, and a file over 400 says why at the top (its first comment names its
 * size: "One class of ~550 lines on purpose: ..."). A file that grows past either fails here,
 * not in a review.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const src = join(fileURLToPath(import.meta.url), "../../../../src");

/** Each hand-written source file, with its lines. */
const sources = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts") && !file.startsWith("api/"))
  .map((file) => ({ file: `src/${file}`, lines: readFileSync(join(src, file), "utf8").split("\n") }));

/** The first comment of a file: where it says why it is long. */
const header = (lines: string[]) =>
  lines.slice(0, lines.findIndex((line) => line.includes("*/")) + 1).join("\n");

describe("sizes of src/ files", () => {
  it("has no file over 600 lines", () => {
    const over = sources.filter((s) => s.lines.length > 600).map((s) => `${s.file}: ${s.lines.length} lines`);
    assert.deepEqual(over, [], "split these files (CONTRIBUTING: no file over 600 lines)");
  });

  it("says at the top of a file over 400 lines why it is one file", () => {
    const unexplained = sources
      .filter((s) => s.lines.length > 400 && !/\d+ lines/.test(header(s.lines)))
      .map((s) => `${s.file}: ${s.lines.length} lines, and its first comment does not say why`);
    assert.deepEqual(unexplained, []);
  });
});
