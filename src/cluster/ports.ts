import { randomInt } from "node:crypto";
import { createServer } from "node:net";

/**
 * Where ports are chosen: below the ephemeral range (Linux's 32768–60999, macOS's 49152–65535).
 * Binding port 0 hands out an ephemeral port, which any outgoing connection of the host may take
 * between the choice and the listen of the process it is meant for — seen as `EADDRINUSE` when
 * test files run in parallel, each with hundreds of connections to its apiserver.
 */
const RANGE = { low: 20_000, high: 32_768 };

const handedOut = new Set<number>();

/**
 * A free TCP port (nothing listens on it on any address), below the ephemeral range, never one
 * this process handed out before.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = randomInt(RANGE.low, RANGE.high);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
}

/** Whether `port` can be listened on on every address (so on 127.0.0.1 too). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}
