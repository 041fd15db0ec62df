/** The control plane's ports: free, distinct, and outside the range outgoing connections take theirs from. */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { freePort } from "../../../src/cluster/ports.ts";

describe("freePort", () => {
  it("hands out distinct ports below the ephemeral range, each free to listen on", async () => {
    const ports = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length);
    for (const port of ports) {
      assert.ok(port >= 1024 && port < 32_768, `port ${port} is below Linux's and macOS's ephemeral ranges`);
      const server = createServer();
      await new Promise<void>((resolve, reject) =>
        server.once("error", reject).listen(port, "0.0.0.0", resolve),
      );
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
