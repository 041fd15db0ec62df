import { KubeloopError } from "../errors/index.ts";

/** A watch delivered nothing (not even a bookmark) for longer than allowed; it is reconnected. Code `KL_WATCH_INACTIVE`. */
export class WatchInactiveError extends KubeloopError {
  constructor(ms: number) {
    super("KL_WATCH_INACTIVE", `the watch received nothing for ${Math.round(ms / 1000)} s; reconnecting`);
  }
}

/** A watch closed immediately without delivering anything; treated as a failure to avoid a hot loop. Code `KL_WATCH_CLOSED_EARLY`. */
export class WatchClosedEarlyError extends KubeloopError {
  constructor() {
    super(
      "KL_WATCH_CLOSED_EARLY",
      "the watch closed at once without any event; backing off before reconnecting",
    );
  }
}
