/**
 * The kinds an operator declared — each controller's `for()`, `owns()` and `watches()`, plus the
 * operator's extra `permissions` — and a warning, once per kind, when its controllers use another
 * one. A forgotten `.owns()` otherwise passes silently on an admin kubeconfig, and fails only in a
 * cluster, where the RBAC `kubeloop generate` derived from the declarations forbids it.
 */
import type { Logger } from "pino";
import { type ResourceType, resourceOf } from "../api/index.ts";
import type { ControllerDeclaration } from "../controller/index.ts";

/** A kind as RBAC grants it: its group and resource, whatever the version. */
export type DeclaredKind = Pick<ResourceType, "apiVersion" | "plural">;

/** What the operator declared, and which undeclared kinds were already warned about. */
export class DeclaredKinds {
  readonly #logger: Pick<Logger, "warn">;
  readonly #declared = new Set<string>();
  readonly #warned = new Set<string>();
  /** How each warned kind is named: `Kind (apiVersion)`. */
  readonly #names = new Map<string, string>();

  /** `permitted`: kinds declared beside the controllers (the operator's `permissions`). */
  constructor(logger: Pick<Logger, "warn">, permitted: readonly DeclaredKind[] = []) {
    this.#logger = logger;
    for (const kind of permitted) this.#declared.add(resourceOf(kind));
  }

  /** Records the kinds a controller reconciles, owns and watches. */
  addController(declaration: ControllerDeclaration): void {
    for (const kind of [declaration.primary, ...declaration.owns, ...declaration.watches])
      this.#declared.add(resourceOf(kind.type));
  }

  /** True when `type` was declared. */
  has(type: DeclaredKind): boolean {
    return this.#declared.has(resourceOf(type));
  }

  /** The undeclared kinds used so far (`Kind (apiVersion)`), each warned about once. */
  get undeclared(): readonly string[] {
    return [...this.#warned.values()].map((resource) => this.#names.get(resource) ?? resource);
  }

  /**
   * Warns, the first time only, that `type` was used (`use`, e.g. `client.create` or
   * `cache.reader`) without being declared, naming the fix.
   */
  check(type: ResourceType, use: string): void {
    const resource = resourceOf(type);
    if (this.#declared.has(resource) || this.#warned.has(resource)) return;
    this.#warned.add(resource);
    this.#names.set(resource, `${type.kind} (${type.apiVersion})`);
    this.#logger.warn({ kind: type.kind, apiVersion: type.apiVersion, use }, undeclaredMessage(type, use));
  }
}

function undeclaredMessage({ kind, apiVersion }: ResourceType, use: string): string {
  return (
    `${kind} (${apiVersion}) is used (${use}) but the operator does not declare it: no controller has it in ` +
    ".for(), .owns() or .watches(), and the operator's permissions do not list it, so no controller hears " +
    "of its changes and the RBAC `kubeloop generate` writes will not allow it (403 in a cluster). Declare " +
    `it: .owns(${kind}) on the controller that creates it, .watches(${kind}, map) on one that reads it, ` +
    `or permissions: [{ type: ${kind}, verbs: [...] }] in defineOperator; then rerun \`kubeloop generate\`.`
  );
}
