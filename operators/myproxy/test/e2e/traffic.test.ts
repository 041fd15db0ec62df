/**
 * The generated configuration, served by the real nginx: requests sent through it reach the backend
 * of each accepted route, and a rejected route's host reaches none. Local HTTP servers stand in for
 * the Services (nginx resolves their cluster names to 127.0.0.1, see ../nginx.ts).
 */
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { before, type TestContext, test } from "node:test";
import { ProxyRoute } from "../../api.ts";
import { serveNginx } from "../nginx.ts";
import {
  configOf,
  createProxy,
  createRoute,
  createService,
  eventually,
  installCrds,
  routesIn,
  startOperator,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

/** A backend on a free loopback port answering `<name> <path>`; closed when the test ends. */
async function backend(t: TestContext, name: string): Promise<number> {
  const server: Server = createServer((req, res) => res.end(`${name} ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** A free loopback port (listened on once, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** GET `path` from nginx on `port` with a Host header; the status and body. */
function get(port: number, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += String(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("nginx with the generated configuration sends each accepted route to its backend, a rejected one nowhere", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const [a, b, port] = [await backend(t, "A"), await backend(t, "B"), await freePort()];
  await createService(ns, "svc-a", [{ port: a }]);
  await createService(ns, "svc-b", [{ port: b, name: "http" }]);
  await createProxy(ns, "edge", { nginx: { port } });
  await createRoute(ns, "to-a", { proxy: "edge", host: "a.example.com", service: "svc-a", port: a });
  await createRoute(ns, "to-b", {
    proxy: "edge",
    host: "b.example.com",
    path: "/api",
    service: "svc-b",
    port: "http",
  });
  await createRoute(ns, "lost", { proxy: "edge", host: "c.example.com", service: "missing", port: 80 });
  for (const name of ["to-a", "to-b"]) {
    await waitForCondition(ProxyRoute, ns, name, { type: "Accepted", status: "True" });
  }
  await waitForCondition(ProxyRoute, ns, "lost", { type: "Accepted", status: "False" });
  const config = await eventually(
    async () => {
      const current = await configOf(ns, "edge");
      return routesIn(current).join() === "to-a,to-b" && current;
    },
    { what: "a configuration with the two accepted routes" },
  );

  const nginx = await serveNginx(config, port);
  t.after(() => nginx.stop());
  assert.deepEqual(await get(port, "a.example.com", "/hello"), { status: 200, body: "A /hello" });
  assert.deepEqual(await get(port, "b.example.com", "/api/items?x=1"), {
    status: 200,
    body: "B /api/items?x=1",
  });
  assert.equal((await get(port, "b.example.com", "/other")).status, 404, "outside the route's path");
  assert.equal((await get(port, "c.example.com", "/")).status, 404, "the rejected route's host");
  assert.equal((await get(port, "unknown.example.com", "/healthz")).body, "ok\n");
});
