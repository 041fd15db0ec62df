/**
 * Keeps the documentation's examples compiling: every ```ts block of README.md and of the guides
 * (`docs/*.md`), and every TSDoc `@example` of the code (`src/`, `operators/`, `templates/`), must
 * stand, line for line, between `// #region <name>` and `// #endregion` in a file under `examples/`,
 * which `npm run typecheck` compiles. `tsx scripts/examples.ts` lists each example that has no
 * compiled source, with where it is and the file its region belongs in, and exits 1.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");

/** One example as the documentation shows it. */
interface DocExample {
  /** `file:line` of the example's first line of code. */
  where: string;
  code: string;
  /** The file under `examples/` its compiled region belongs in. */
  home: string;
}

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => !f.split(/[\\/]/).includes("node_modules"))
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

/** The ```ts blocks of a guide, found as fenced code. */
function guideExamples(file: string): DocExample[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
    if (end < 0) break;
    const where = `${relative(root, file)}:${i + 2}`;
    blocks.push({ where, code: normalise(lines.slice(i + 1, end)), home: "examples/<guide>.ts" });
    i = end;
  }
  return blocks;
}

/** The file under `examples/` for the TSDoc examples of `file`: `src/<folder>/…` → `examples/tsdoc/<folder>.ts`. */
function tsdocHome(file: string): string {
  const [top, folder] = relative(root, file).split(/[\\/]/);
  const concept = top === "src" ? folder?.replace(/\.ts$/, "") : `${top}-${folder?.replace(/\.ts$/, "")}`;
  return `examples/tsdoc/${concept}.ts`;
}

/**
 * The `@example` blocks of every doc comment of `file`: the ```ts fence between the tag and the
 * next one, or, for an example written without a fence, its text up to the next tag. The comment's
 * leading ` * ` is stripped.
 */
function tsdocExamples(file: string): DocExample[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const examples: DocExample[] = [];
  const inDoc = docLines(lines);
  for (let i = 0; i < lines.length; i++) {
    if (!inDoc[i] || !/^\s*\*?\s*@example\b/.test(lines[i] ?? "")) continue;
    const body = exampleBody(lines, inDoc, i);
    const code = body.fenced ? body.lines.slice(1, -1) : body.lines;
    const first = body.start + (body.fenced ? 1 : 0);
    examples.push({
      where: `${relative(root, file)}:${first + 1}`,
      code: normalise(code.map(uncomment)),
      home: tsdocHome(file),
    });
    i = body.start + body.lines.length - 1;
  }
  return examples;
}

/** Which lines are inside a `/** … *\/` doc comment (the lines of the comment's text). */
function docLines(lines: readonly string[]): boolean[] {
  let open = false;
  return lines.map((line) => {
    const trimmed = line.trim();
    if (!open && trimmed.startsWith("/**") && !trimmed.endsWith("*/")) {
      open = true;
      return false;
    }
    if (open && trimmed.endsWith("*/")) open = false;
    return open;
  });
}

/** A doc comment line's text, without the leading ` * `. */
function uncomment(line: string): string {
  return line.replace(/^\s*\* ?/, "");
}

/** The lines of the `@example` at `at`: its ```ts fence (fences included), or, without one, its text to the next tag. */
function exampleBody(
  lines: readonly string[],
  inDoc: readonly boolean[],
  at: number,
): { start: number; lines: string[]; fenced: boolean } {
  const rest = (from: number) => {
    const end = lines.findIndex((l, j) => j >= from && (!inDoc[j] || /^@\w/.test(uncomment(l).trim())));
    return lines.slice(from, end < 0 ? lines.length : end);
  };
  const text = rest(at + 1);
  const open = text.findIndex((l) => uncomment(l).trim() === "```ts");
  if (open >= 0) {
    const close = text.findIndex((l, j) => j > open && uncomment(l).trim() === "```");
    if (close > open) return { start: at + 1 + open, lines: text.slice(open, close + 1), fenced: true };
  }
  const inline = uncomment(lines[at] ?? "").replace(/^\s*@example\b/, "");
  return inline.trim() === ""
    ? { start: at + 1, lines: text, fenced: false }
    : { start: at, lines: [inline, ...text], fenced: false };
}

function documentedExamples(): DocExample[] {
  const guides = [join(root, "README.md"), ...filesUnder("docs", (f) => f.endsWith(".md"))];
  const code = ["src", "operators", "templates"].flatMap((dir) => filesUnder(dir, (f) => f.endsWith(".ts")));
  return [...guides.flatMap(guideExamples), ...code.flatMap(tsdocExamples)];
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
const examples = documentedExamples();
const missing = examples.filter((e) => !regions.has(e.code));
for (const example of missing) {
  console.error(
    `${example.where}: this example has no compiled source. Fix: put the same lines between ` +
      `\`// #region <name>\` and \`// #endregion\` in ${example.home} (it must type-check), or change the doc to match the region.`,
  );
}
console.log(
  `examples: ${examples.length} documented examples, ${regions.size} compiled regions, ` +
    `${missing.length} examples without one`,
);
process.exitCode = missing.length === 0 ? 0 : 1;
