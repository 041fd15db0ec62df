/** Writing a child as read, again after a 409 Conflict, as client-go's `retry.RetryOnConflict`. */
import { ConflictError } from "../../client/index.ts";

/** How many times {@link retryOnConflict} writes (client-go's `retry.DefaultRetry` steps). */
const conflictAttempts = 5;

/**
 * Writes the child `read` answers with `write`; when the write fails with 409 Conflict (the child
 * changed since it was read, most often only its status: a Deployment rolling out, a Job's pods
 * finishing), reads it again with `reread` and writes again, five times at most. Any other error
 * is thrown at once.
 */
export async function retryOnConflict<C, R>(
  read: () => Promise<C>,
  reread: () => Promise<C>,
  write: (fresh: C) => Promise<R>,
): Promise<R> {
  let fresh = await read();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(fresh);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= conflictAttempts) throw err;
      fresh = await reread();
    }
  }
}
