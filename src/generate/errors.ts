import { KubeloopError } from "../errors/index.ts";

/** A permission request or RBAC option cannot produce valid, least-privilege RBAC. Code `KL_GENERATE_RBAC`. */
export class RbacError extends KubeloopError {
  constructor(cause: string, fix: string) {
    super("KL_GENERATE_RBAC", `RBAC: ${cause}. Fix: ${fix}`);
  }
}
