/**
 * Following one AbortSignal from many places with a single listener on it. Every informer of a
 * process, and every wait for their sync, follows the same shutdown signal; a listener each would
 * pass Node's limit of 10 and print `MaxListenersExceededWarning` (and leak the listeners of
 * waits that ended). Raising the limit would only hide a leak, so followers share one listener
 * per signal and detach when done.
 */

interface Followers {
  readonly listener: () => void;
  readonly callbacks: Set<(reason: unknown) => void>;
}

const followed = new WeakMap<AbortSignal, Followers>();

/**
 * Calls `onAbort` with the signal's reason when `signal` aborts (which it must not have yet).
 * Returns a function that stops following; the signal's shared listener goes with the last follower.
 */
export function followAbort(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  const followers = followed.get(signal) ?? listen(signal);
  followers.callbacks.add(onAbort);
  return () => {
    followers.callbacks.delete(onAbort);
    if (followers.callbacks.size > 0 || followed.get(signal) !== followers) return;
    followed.delete(signal);
    signal.removeEventListener("abort", followers.listener);
  };
}

function listen(signal: AbortSignal): Followers {
  const callbacks = new Set<(reason: unknown) => void>();
  const listener = () => {
    followed.delete(signal);
    for (const callback of callbacks) callback(signal.reason);
  };
  signal.addEventListener("abort", listener, { once: true });
  const followers = { listener, callbacks };
  followed.set(signal, followers);
  return followers;
}

/**
 * A controller of its own that aborts when `parent` does (at once if it already has), so an
 * informer's requests and sleeps listen on a signal of their own. `release` detaches it from the parent.
 */
export function childController(parent: AbortSignal): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, release: () => {} };
  }
  return { controller, release: followAbort(parent, (reason) => controller.abort(reason)) };
}
