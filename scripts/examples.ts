/**
 * Keeps the documentation's examples compiling: every ```ts block of README.md and of the guides
 * (`docs/*.md`), and every `@example` of a module doc (`src/**\/index.ts`), must stand, line for
 * line, between `// #region <name>` and `// #endregion` in a file under `examples/`, which
 * `npm run typecheck` compiles. `tsx scripts/examples.ts` lists each example that has no compiled
 * source and exits 1.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");

/** One example as the documentation shows it. */
interface DocExample {
  where: string;
  code: string;
}

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .map((f) => join(root, dir, f))
    .filter(keep)
    .sort();
}

/** Trailing blanks dropped, common indentation removed, surrounding blank lines trimmed. */
function normalise(lines: readonly string[]): string {
  const trimmed = lines.map((l) => l.trimEnd());
  const indents = trimmed.filter((l) => l !== "").map((l) => l.length - l.trimStart().length);
  const indent = Math.min(...indents, Number.MAX_SAFE_INTEGER);
  return trimmed
    .map((l) => l.slice(indent))
    .join("\n")
    .trim();
}

/** The ```ts blocks between `open` and the closing fence, with each line passed through `strip`. */
function fencedBlocks(text: string, file: string, strip: (line: string) => string): DocExample[] {
  const lines = text.split("\n").map(strip);
  const blocks: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
    if (end < 0) break;
    blocks.push({ where: `${relative(root, file)}:${i + 2}`, code: normalise(lines.slice(i + 1, end)) });
    i = end;
  }
  return blocks;
}

/** The `@example` blocks of the module doc (the first comment) of `file`. */
function moduleExamples(file: string): DocExample[] {
  const text = readFileSync(file, "utf8");
  const doc = /^\/\*\*([\s\S]*?)\*\//.exec(text)?.[1];
  if (!doc?.includes("@module")) return [];
  return fencedBlocks(doc, file, (l) => l.replace(/^\s*\* ?/, ""));
}

function documentedExamples(): DocExample[] {
  const markdown = [join(root, "README.md"), ...filesUnder("docs", (f) => f.endsWith(".md"))];
  const modules = filesUnder("src", (f) => f.endsWith("index.ts"));
  return [
    ...markdown.flatMap((file) => fencedBlocks(readFileSync(file, "utf8"), file, (l) => l)),
    ...modules.flatMap(moduleExamples),
  ];
}

/** The code between `// #region` and `// #endregion` lines of every file under `examples/`. */
function compiledRegions(): Set<string> {
  const regions = new Set<string>();
  for (const file of filesUnder("examples", (f) => f.endsWith(".ts"))) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!line.trim().startsWith("// #region")) return;
      const end = lines.findIndex((l, j) => j > i && l.trim().startsWith("// #endregion"));
      if (end > i) regions.add(normalise(lines.slice(i + 1, end)));
    });
  }
  return regions;
}

const regions = compiledRegions();
const missing = documentedExamples().filter((e) => !regions.has(e.code));
for (const example of missing) {
  console.error(
    `${example.where}: this example has no compiled source. Fix: put the same lines between ` +
      "`// #region <name>` and `// #endregion` in a file under examples/ (it must type-check), or change the doc to match the region.",
  );
}
console.log(`examples: ${regions.size} compiled regions, ${missing.length} documented examples without one`);
process.exitCode = missing.length === 0 ? 0 : 1;
