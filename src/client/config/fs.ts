import { stat } from "node:fs/promises";

/** True when `path` exists; false when it does not; throws on other errors (permissions, say). */
export async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
