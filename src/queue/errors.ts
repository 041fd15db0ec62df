import { KubeloopError } from "../errors/index.ts";

/**
 * A queue or rate-limiter argument is out of range: a delay that is not a number, a zero `qps`,
 * a burst below one, a negative base delay. Code `KL_QUEUE_INVALID_ARGUMENT`.
 */
export class InvalidQueueArgumentError extends KubeloopError {
  /** The argument or option that was rejected, e.g. `qps`. */
  readonly argument: string;

  constructor(argument: string, value: unknown, expected: string) {
    super(
      "KL_QUEUE_INVALID_ARGUMENT",
      `${argument} is ${String(value)}, but it must be ${expected}. Pass a value in that range.`,
    );
    this.argument = argument;
  }
}
