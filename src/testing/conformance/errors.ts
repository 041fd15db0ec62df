/** Errors a user of the conformance kit can cause. */
import { KubeloopError } from "../../errors/index.ts";

/**
 * The conformance spec or the operator under test cannot be used as given: a missing module, no
 * fixtures, an operator process that does not start. Code `KL_CONFORMANCE`.
 */
export class ConformanceError extends KubeloopError {
  constructor(message: string, options?: ErrorOptions) {
    super("KL_CONFORMANCE", message, options);
  }
}
