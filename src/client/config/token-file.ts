import { readFile } from "node:fs/promises";
import type { Clock } from "../../clock/index.ts";
import type { KubeloopError } from "../../errors/index.ts";
import type { AuthParts, AuthSource } from "./credentials.ts";

/** How often a token file is read again at most, as client-go does: bound tokens rotate. */
export const TOKEN_FILE_RECHECK_MS = 60_000;

/** Options of {@link tokenFileSource}. */
export interface TokenFileOptions {
  path: string;
  clock: Clock;
  /** Builds the error for an unreadable or empty file; `reason` says which. */
  error: (reason: string, cause?: unknown) => KubeloopError;
}

/**
 * A bearer token read from a file, read again when {@link TOKEN_FILE_RECHECK_MS} has passed or
 * after `invalidate()`. When a later read fails, the last good token stays in use (the file may
 * be mid-rotation) and the next `get` tries again after the recheck interval.
 */
export function tokenFileSource(options: TokenFileOptions): AuthSource {
  let parts: AuthParts | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;

  const read = async (): Promise<AuthParts> => {
    let token: string;
    try {
      token = (await readFile(options.path, "utf8")).trim();
    } catch (err) {
      if (parts) return parts;
      throw options.error(`cannot be read (${(err as NodeJS.ErrnoException).code ?? err})`, err);
    }
    if (token === "") {
      if (parts) return parts;
      throw options.error("is empty");
    }
    if (parts?.authorization !== `Bearer ${token}`) parts = { authorization: `Bearer ${token}` };
    return parts;
  };

  return {
    async get() {
      const now = options.clock.now();
      if (parts && now - checkedAt < TOKEN_FILE_RECHECK_MS) return parts;
      const result = await read();
      checkedAt = now;
      return result;
    },
    invalidate() {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
