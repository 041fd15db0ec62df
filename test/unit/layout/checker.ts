/**
 * Checks the layering of `src/` from the code's own imports (static `import`, `import type`,
 * `export … from` and literal `import()`), against the folder order of CONTRIBUTING.md's layout
 * table: a folder imports only folders above it in the table, no circle crosses folders, and
 * another folder is reached only through one of its doors (its `index.ts`, or a file a
 * `package.json` export names; never its `internal/`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path/posix";
import ts from "typescript";

/** An import of one source file, resolved to the file it names. */
export interface Import {
  /** The importing file, relative to the repository (`src/controller/builder.ts`). */
  file: string;
  /** The 1-based line of the import. */
  line: number;
  /** The specifier as written (`../ownership/index.ts`). */
  specifier: string;
  /** The imported file, relative to the repository (`src/ownership/index.ts`). */
  target: string;
}

/** What the checker found, one message a line, each naming the file, line and import to fix. */
export interface LayoutReport {
  backArrows: string[];
  circles: string[];
  bypasses: string[];
  /** Folders of `src/` that CONTRIBUTING.md's table does not list. */
  unlisted: string[];
}

/** The layer order from CONTRIBUTING.md: the `src/<folder>` rows of its layout table, top first. */
export function layerOrder(contributing: string): string[] {
  const rows = contributing.matchAll(/^\|\s*`src\/([\w-]+)`\s*\|/gm);
  return [...rows].map((row) => row[1] as string);
}

/** The folder a source file belongs to (`src/controller/x.ts` → `controller`); `src/index.ts` is the root door, `.`. */
export function folderOf(file: string): string {
  const [, folder, rest] = file.split("/");
  return rest === undefined ? "." : (folder as string);
}

/**
 * The doors of `src/` from `package.json`'s `exports` (their `kubeloop-source` files): for a
 * wildcard entry (`./api/*`), a predicate on the file.
 */
export function doorsFrom(exports: Record<string, Record<string, string>>): (file: string) => boolean {
  const patterns = Object.values(exports).map((entry) =>
    (entry["kubeloop-source"] ?? "").replace(/^\.\//, ""),
  );
  return (file) =>
    !file.includes("/internal/") &&
    patterns.some((p) => {
      const star = p.indexOf("*");
      if (star < 0) return p === file;
      return file.startsWith(p.slice(0, star)) && file.endsWith(p.slice(star + 1));
    });
}

/**
 * The imports of one file that land in `src/` (relative ones, and `kubeloop` self-references
 * through `resolvePackage`); packages of node_modules are not the layout's business.
 */
export function importsOf(
  file: string,
  text: string,
  resolvePackage: (specifier: string) => string | undefined,
): Import[] {
  const lineOf = (pos: number) => text.slice(0, pos).split("\n").length;
  return ts.preProcessFile(text, true, true).importedFiles.flatMap(({ fileName: specifier, pos }) => {
    const target = specifier.startsWith(".")
      ? normalize(join(dirname(file), specifier))
      : resolvePackage(specifier);
    return target?.startsWith("src/") ? [{ file, line: lineOf(pos), specifier, target }] : [];
  });
}

const where = (i: Import) => `${i.file}:${i.line} imports "${i.specifier}"`;

/** Checks imports against the layer order (top first) and the doors. */
export function checkLayout(
  imports: Import[],
  order: string[],
  isDoor: (file: string) => boolean,
): LayoutReport {
  const crossing = imports.filter((i) => folderOf(i.file) !== folderOf(i.target));
  // The root door (`src/index.ts`) sits under every folder: it may import any, none may import it.
  const floor = (folder: string) => (folder === "." ? order.length : order.indexOf(folder));
  const folders = new Set([
    ...imports.map((i) => folderOf(i.file)),
    ...imports.map((i) => folderOf(i.target)),
  ]);
  const unlisted = [...folders].filter((f) => floor(f) < 0).sort();
  const backArrows = crossing
    .filter((i) => floor(folderOf(i.target)) > floor(folderOf(i.file)) && floor(folderOf(i.file)) >= 0)
    .map(
      (i) =>
        `${where(i)}: src/${folderOf(i.target)} sits below src/${folderOf(i.file)} in CONTRIBUTING.md's table, and imports run down it only: declare what it imports in src/${folderOf(i.file)} or a folder above it (or, when src/${folderOf(i.target)} imports nothing below src/${folderOf(i.file)}, move its row up)`,
    );
  const bypasses = crossing
    .filter((i) => !isDoor(i.target))
    .map(
      (i) =>
        `${where(i)}: import it through the door of src/${folderOf(i.target)} (its index.ts), not ${i.target}`,
    );
  return { backArrows, circles: circlesIn(crossing), bypasses, unlisted };
}

/** Folders that import each other round a circle (strongly connected components of more than one folder), with the imports that close it. */
function circlesIn(crossing: Import[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const i of crossing) {
    const to = edges.get(folderOf(i.file)) ?? new Set();
    edges.set(folderOf(i.file), to.add(folderOf(i.target)));
  }
  return stronglyConnected(edges)
    .filter((component) => component.length > 1)
    .map((component) => {
      const inside = crossing.filter(
        (i) => component.includes(folderOf(i.file)) && component.includes(folderOf(i.target)),
      );
      return `circle across ${component.map((f) => `src/${f}`).join(", ")}: ${inside.map(where).join("; ")}`;
    });
}

/** Tarjan's algorithm: the strongly connected components of a directed graph, each sorted. */
function stronglyConnected(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let top: string | undefined;
    do {
      top = stack.pop() as string;
      component.push(top);
    } while (top !== node);
    components.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** Checks the layout of the repository at `root`: every `.ts` file under `src/`, CONTRIBUTING.md's table, package.json's doors. */
export function checkRepository(root: string): LayoutReport & { order: string[]; imports: Import[] } {
  const read = (file: string) => readFileSync(join(root, file), "utf8");
  const { exports } = JSON.parse(read("package.json")) as { exports: Record<string, Record<string, string>> };
  const isDoor = doorsFrom(exports);
  const resolvePackage = (specifier: string) => {
    const entry = exports[specifier.replace(/^kubeloop/, ".")]?.["kubeloop-source"];
    return entry?.replace(/^\.\//, "");
  };
  const files = (readdirSync(join(root, "src"), { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `src/${f}`);
  const imports = files.flatMap((file) => importsOf(file, read(file), resolvePackage));
  const order = layerOrder(read("CONTRIBUTING.md"));
  return { ...checkLayout(imports, order, isDoor), order, imports };
}
