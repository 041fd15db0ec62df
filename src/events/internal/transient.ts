/** Which failed writes are worth another attempt. */
import { ApiError, ConflictError, UnreachableError } from "../../client/index.ts";
import { KubeloopError } from "../../errors/index.ts";

/**
 * True for failures that say nothing about the event itself: the apiserver unreachable, a
 * network or timeout error (a system or undici error `code`), a 5xx, 429 or a storage conflict.
 * Everything else (invalid, forbidden, namespace gone) would fail the same way again.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof UnreachableError || err instanceof ConflictError) return true;
  if (err instanceof ApiError) return err.statusCode >= 500 || err.statusCode === 429;
  if (err instanceof KubeloopError) return false;
  return typeof (err as { code?: unknown } | null | undefined)?.code === "string";
}
