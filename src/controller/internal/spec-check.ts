/**
 * The check of a primary object's spec before its reconcile, for a kind whose spec has
 * refinements its CRD cannot carry (`defineKind` lists them): the apiserver admitted the object,
 * so the controller is the first to see that it fails them.
 */
import type { KubeObject, ResourceType } from "../../api/index.ts";
import { SpecInvalidError } from "../errors.ts";

/** A kind of `defineKind` as the controller sees it, without importing the schema concept above it. */
interface RefinedKind {
  readonly refinements: readonly string[];
  parseSpec(spec: unknown): unknown;
}

/**
 * A check of `type`'s objects, or undefined when the apiserver checks them whole (a built-in kind,
 * or a kind without refinements). The check returns the error to fail the reconcile with, or
 * undefined; an object being deleted always passes, so that its finalizers still run.
 */
export function specCheckOf(
  type: ResourceType<KubeObject>,
): ((key: string, object: KubeObject | undefined) => SpecInvalidError | undefined) | undefined {
  const kind = type as Partial<RefinedKind>;
  if (typeof kind.parseSpec !== "function" || !kind.refinements?.length) return undefined;
  const parse = kind.parseSpec;
  return (key, object) => {
    if (!object || object.metadata.deletionTimestamp) return undefined;
    try {
      parse((object as { spec?: unknown }).spec);
      return undefined;
    } catch (err) {
      return new SpecInvalidError(key, err);
    }
  };
}
