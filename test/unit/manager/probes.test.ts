/** `/healthz` and `/readyz` as the apiserver answers them: `ok`, or a line per check; `?verbose` lists the lines. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { request } from "undici";
import { type Check, serveEndpoints } from "../../../src/manager/index.ts";

async function probe(readyz: Record<string, Check>, path: string): Promise<{ status: number; body: string }> {
  const { server, port } = await serveEndpoints("127.0.0.1", 0, { health: { healthz: {}, readyz } });
  try {
    const res = await request(`http://127.0.0.1:${port}${path}`);
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    server.close();
  }
}

test("passing checks answer ok; ?verbose lists each, with the detail a check returns", async () => {
  const checks = { synced: () => true, shards: () => "held 0,3 of 4" };
  assert.deepEqual(await probe(checks, "/readyz"), { status: 200, body: "ok" });
  assert.deepEqual(await probe(checks, "/readyz?verbose"), {
    status: 200,
    body: "[+]synced ok\n[+]shards ok: held 0,3 of 4",
  });
});

test("a failing check answers 500 with every line, its message shown", async () => {
  const checks = {
    shards: () => "held none of 4",
    synced: () => {
      throw new Error("not synced: v1/ConfigMap");
    },
    lost: () => false,
  };
  assert.deepEqual(await probe(checks, "/readyz"), {
    status: 500,
    body: "[+]shards ok: held none of 4\n[-]synced failed: not synced: v1/ConfigMap\n[-]lost failed",
  });
});
