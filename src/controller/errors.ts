/** Errors a user of the controller builder or of {@link Action} can cause. */
import { KubeloopError } from "../errors/index.ts";

/**
 * A builder method that needs the primary kind was called before `.for(kind)`: `.owns()` maps
 * children to owners of the primary kind, and `.reconcile()` reconciles it. Code
 * `KL_CONTROLLER_BUILDER`.
 */
export class ControllerBuilderError extends KubeloopError {
  constructor(method: string) {
    super(
      "KL_CONTROLLER_BUILDER",
      `controller builder: .${method}() was called before .for(kind); call .for(kind) first, ` +
        "e.g. controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget)",
    );
  }
}

/**
 * `Action.requeueAfter(ms)` got a delay that is not a finite number of milliseconds >= 0. Code
 * `KL_INVALID_REQUEUE`.
 */
export class InvalidRequeueError extends KubeloopError {
  /** The rejected delay. */
  readonly ms: number;

  constructor(ms: number) {
    super(
      "KL_INVALID_REQUEUE",
      `Action.requeueAfter(${ms}): the delay must be a finite number of milliseconds >= 0; ` +
        "pass e.g. Action.requeueAfter(30_000), or return nothing to wait for a change",
    );
    this.ms = ms;
  }
}
