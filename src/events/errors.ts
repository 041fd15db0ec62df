import { KubeloopError } from "../errors/index.ts";

/**
 * An {@link EventRecorder} option is out of range: a `reportingController` that is not a
 * qualified name, an empty or over-long `reportingInstance`, a non-positive interval or size.
 * Raised by the constructor only; recording itself never throws. Code `KL_EVENTS_INVALID_OPTION`.
 */
export class InvalidRecorderOptionError extends KubeloopError {
  /** The option that was rejected, e.g. `reportingController`. */
  readonly option: string;

  constructor(option: string, value: unknown, expected: string) {
    super(
      "KL_EVENTS_INVALID_OPTION",
      `event recorder option ${option} is ${JSON.stringify(value)}, but it must be ${expected}. Pass a value in that form.`,
    );
    this.option = option;
  }
}
