import { KubeloopError } from "../errors/index.ts";

/**
 * Types cannot be generated: the cluster's API could not be read, or a CRD given to
 * `kubeloop import` is unreadable, not a CRD, or has no structural schema. Code `KL_TYPEGEN`.
 * The message names the cause and the fix.
 */
export class TypegenError extends KubeloopError {
  constructor(cause: string, fix: string, error?: unknown) {
    super("KL_TYPEGEN", `${cause}. Fix: ${fix}`, error === undefined ? undefined : { cause: error });
  }
}
