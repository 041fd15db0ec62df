/** Errors of the `kubeloop` commands a user can cause. */
import { KubeloopError } from "../errors/index.ts";

/**
 * `kubeloop build` could not bundle the operator: `KL_BUILD_ENTRY_MISSING` (no entry file),
 * `KL_BUILD_ESBUILD_MISSING` (esbuild not installed) or `KL_BUILD_FAILED` (esbuild's errors, each
 * with its file:line).
 */
export class BuildError extends KubeloopError {}
