/**
 * @module errors
 *
 * The root of kubeloop's error hierarchy. Every error kubeloop throws on purpose is a
 * {@link KubeloopError} with a stable `code` (for example `KL_NOT_FOUND`) that callers match on,
 * a message that names the cause and the fix, and the underlying `cause` when there is one.
 * Each concept declares its own subclasses next to its code (`client/errors.ts`,
 * `cluster/errors.ts`, ...); this folder only holds the base.
 *
 * `instanceof` works across two installed copies of kubeloop, because every instance carries
 * a `Symbol.for` brand that the classes check.
 *
 * @example
 * ```ts
 * export async function readSettings(client: Client): Promise<ConfigMapObject | undefined> {
 *   try {
 *     return await client.get(ConfigMap, "settings", { namespace: "default" });
 *   } catch (err) {
 *     if (err instanceof KubeloopError && err.code === "KL_NOT_FOUND") return undefined;
 *     throw err;
 *   }
 * }
 * ```
 */

const brand = Symbol.for("kubeloop.error");

/** Base class of every error kubeloop raises deliberately. */
export class KubeloopError extends Error {
  /** A stable, documented identifier such as `KL_CONFLICT`; match on this, not on the message. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    const lineage: string[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      lineage.push((c as { name: string }).name);
    }
    Object.defineProperty(this, brand, { value: lineage });
  }

  /** Matches by class name along the brand, so instances from another copy of kubeloop match too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== "object" || value === null) return false;
    const lineage = (value as { [brand]?: string[] })[brand];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass `instanceof` was called on.
    return Array.isArray(lineage) && lineage.includes(this.name);
  }
}

/** True when `err` is a {@link KubeloopError} with the given code. */
export function hasCode(err: unknown, code: string): boolean {
  return err instanceof KubeloopError && err.code === code;
}
