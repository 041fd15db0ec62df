/**
 * One generated TypeScript module: its imports, its declarations in the order they were made,
 * and the names it already uses, so inline objects get names of their own.
 */
import { interfaceDeclaration, type TypeScope } from "./emit.ts";
import type { Schema } from "./schema.ts";

/** Resolves a `$ref` to a TypeScript name for `module`, adding the import it needs there. */
export type RefResolver = (ref: string, module: ModuleBuilder) => string;

/** Collects the text of a module; see {@link ModuleBuilder.render}. */
export class ModuleBuilder implements TypeScope {
  readonly #resolve: RefResolver;
  readonly #declarations: string[] = [];
  readonly #names = new Set<string>();
  /** Namespace imports of types: alias → module specifier. */
  readonly #namespaces = new Map<string, string>();
  /** Named imports: module specifier → `name` or `type name`. */
  readonly #named = new Map<string, Set<string>>();
  /** Re-exports: module specifier → `name` or `type name`. */
  readonly #reexports = new Map<string, Set<string>>();

  constructor(resolve: RefResolver = refsUnsupported) {
    this.#resolve = resolve;
  }

  /** Marks names as taken (declared elsewhere in the module), so inline objects avoid them. */
  reserve(...names: string[]): void {
    for (const name of names) this.#names.add(name);
  }

  /** Appends a declaration's text; `render` runs now, with its place kept ahead of what it declares. */
  declare(render: () => string): void {
    const slot = this.#declarations.push("") - 1;
    this.#declarations[slot] = render();
  }

  refName(ref: string): string {
    return this.#resolve(ref, this);
  }

  declareObject(nameHint: string, schema: Schema): string {
    let name = nameHint;
    for (let n = 2; this.#names.has(name); n++) name = `${nameHint}${n}`;
    this.#names.add(name);
    this.declare(() => interfaceDeclaration(name, schema, this));
    return name;
  }

  /** `import type * as <alias> from "<specifier>"`. */
  importNamespace(alias: string, specifier: string): void {
    this.#namespaces.set(alias, specifier);
  }

  /** `import { <name> } from "<specifier>"`, or `{ type <name> }` when `typeOnly`. */
  importName(name: string, specifier: string, typeOnly: boolean): void {
    addName(this.#named, name, specifier, typeOnly);
  }

  /** `export { <name> } from "<specifier>"`, or `{ type <name> }` when `typeOnly`. */
  reexport(name: string, specifier: string, typeOnly: boolean): void {
    addName(this.#reexports, name, specifier, typeOnly);
  }

  /** The module's source: `header` as its doc comment, imports sorted by specifier, declarations. */
  render(header: string): string {
    const imports = [...this.#namespaceImports(), ...namedStatements("import", this.#named)]
      .sort(([a], [b]) => compareSpecifiers(a, b))
      .map(([, line]) => line);
    const reexports = namedStatements("export", this.#reexports)
      .sort(([a], [b]) => compareSpecifiers(a, b))
      .map(([, line]) => line);
    const doc = `/**\n${header
      .split("\n")
      .map((line) => ` *${line ? ` ${line}` : ""}`)
      .join("\n")}\n */\n`;
    return `${doc}${imports.join("")}${reexports.join("")}\n${this.#declarations.join("\n")}`;
  }

  #namespaceImports(): [string, string][] {
    return [...this.#namespaces].map(([alias, specifier]) => [
      specifier,
      `import type * as ${alias} from "${specifier}";\n`,
    ]);
  }
}

function addName(into: Map<string, Set<string>>, name: string, specifier: string, typeOnly: boolean): void {
  const names = into.get(specifier) ?? new Set<string>();
  names.add(typeOnly ? `type ${name}` : name);
  into.set(specifier, names);
}

/** `import { a, type B } from "x";` lines (or `export`), `import type { ... }` when all are types. */
function namedStatements(keyword: "import" | "export", names: Map<string, Set<string>>): [string, string][] {
  return [...names].map(([specifier, set]) => {
    const bare = (name: string) => name.replace(/^type /, "");
    const sorted = [...set].sort((a, b) => compareText(bare(a), bare(b)));
    const allTypes = sorted.every((name) => name.startsWith("type "));
    const list = allTypes ? sorted.map(bare) : sorted;
    return [specifier, `${keyword} ${allTypes ? "type " : ""}{ ${list.join(", ")} } from "${specifier}";\n`];
  });
}

function refsUnsupported(ref: string): never {
  throw new Error(`unexpected $ref ${ref} in an inline schema`);
}

/** Biome's order: by specifier, `/` sorting before any other character. */
function compareSpecifiers(a: string, b: string): number {
  return compareText(a.replaceAll("/", "\u0000"), b.replaceAll("/", "\u0000"));
}

/** Code-unit order, the same in every locale, so generated output is too. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
