import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { routeHazards } from "../../hazards.ts";
import { CONFIG_BUDGET_BYTES, ConfigMeter, nginxConfig } from "../../nginx.ts";
import { acceptedRoutes } from "../../routes.ts";
import { largeRouteSpec, NS, route, service } from "./fixtures.ts";

const names = (items: { route: { metadata: { name?: string } } }[]) =>
  items.map((i) => i.route.metadata.name);

describe("acceptedRoutes: backends", () => {
  it("accepts a route whose Service has the port, resolving the upstream URL", () => {
    const { accepted, rejected } = acceptedRoutes(
      [route("api", { host: "api.example.com", path: "/v1", service: "api", port: 8080 })],
      [service("api", [{ port: 8080 }])],
    );
    assert.deepEqual(rejected, []);
    assert.deepEqual(accepted[0]?.upstream, {
      service: "api",
      namespace: NS,
      port: 8080,
      url: `http://api.${NS}.svc.cluster.local:8080`,
    });
  });

  it("resolves a port name to the Service's port number", () => {
    const { accepted } = acceptedRoutes(
      [route("web", { host: "www.example.com", service: "web", port: "http" })],
      [
        service("web", [
          { port: 9000, name: "metrics" },
          { port: 80, name: "http" },
        ]),
      ],
    );
    assert.equal(accepted[0]?.upstream.port, 80);
  });

  it("rejects a route whose Service is missing with BackendNotFound", () => {
    const { accepted, rejected } = acceptedRoutes(
      [route("lost", { host: "a.example.com", service: "nowhere", port: 80 })],
      [service("web", [{ port: 80 }])],
    );
    assert.deepEqual(accepted, []);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason, r.message]),
      [["lost", "BackendNotFound", `Service nowhere not found in namespace ${NS}`]],
    );
  });

  it("rejects a route naming a port the Service does not offer, listing what it offers", () => {
    const { rejected } = acceptedRoutes(
      [
        route("by-number", { host: "a.example.com", service: "web", port: 8443 }),
        route("by-name", { host: "b.example.com", service: "web", port: "https" }),
      ],
      [service("web", [{ port: 80, name: "http" }, { port: 9090 }])],
    );
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason, r.message]),
      [
        ["by-name", "BackendNotFound", "Service web has no port https; it offers 80 (http), 9090"],
        ["by-number", "BackendNotFound", "Service web has no port 8443; it offers 80 (http), 9090"],
      ],
    );
  });

  it("never uses a Service of another namespace", () => {
    const { rejected } = acceptedRoutes(
      [route("api", { host: "api.example.com", service: "api", port: 80 })],
      [service("api", [{ port: 80 }], "elsewhere")],
    );
    assert.equal(rejected[0]?.reason, "BackendNotFound");
  });
});

describe("acceptedRoutes: conflicts", () => {
  const web = service("web", [{ port: 80 }]);

  it("gives a host and path to the oldest route; younger ones get Conflict naming the winner", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("young", { host: "a.example.com", path: "/x", service: "web", port: 80 }, 30),
        route("old", { host: "a.example.com", path: "/x", service: "web", port: 80 }, 10),
        route("other-path", { host: "a.example.com", path: "/y", service: "web", port: 80 }, 40),
      ],
      [web],
    );
    assert.deepEqual(names(accepted), ["old", "other-path"]);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason, r.message]),
      [["young", "Conflict", "host a.example.com path /x is already served by the older ProxyRoute old"]],
    );
  });

  it("breaks a tie of creation times by name", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("b", { host: "a.example.com", service: "web", port: 80 }, 5),
        route("a", { host: "a.example.com", service: "web", port: 80 }, 5),
      ],
      [web],
    );
    assert.deepEqual(names(accepted), ["a"]);
    assert.deepEqual(names(rejected), ["b"]);
  });

  it("lets only routes with a resolvable backend claim a host and path", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("old-broken", { host: "a.example.com", service: "missing", port: 80 }, 1),
        route("young-working", { host: "a.example.com", service: "web", port: 80 }, 2),
      ],
      [web],
    );
    assert.deepEqual(names(accepted), ["young-working"]);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason]),
      [["old-broken", "BackendNotFound"]],
    );
  });

  it("treats the same path on different hosts as different routes", () => {
    const { accepted } = acceptedRoutes(
      [
        route("a", { host: "a.example.com", service: "web", port: 80 }),
        route("b", { host: "b.example.com", service: "web", port: 80 }),
      ],
      [web],
    );
    assert.deepEqual(names(accepted), ["a", "b"]);
  });

  it("answers the same whatever the order of its inputs", () => {
    const routes = [
      route("r1", { host: "b.example.com", path: "/", service: "web", port: 80 }, 3),
      route("r2", { host: "a.example.com", path: "/z", service: "web", port: 80 }, 2),
      route("r3", { host: "a.example.com", path: "/a", service: "web", port: 80 }, 1),
      route("r4", { host: "a.example.com", path: "/a", service: "web", port: 80 }, 0),
    ];
    const forward = acceptedRoutes(routes, [web]);
    const backward = acceptedRoutes([...routes].reverse(), [web]);
    assert.deepEqual(names(forward.accepted), ["r4", "r2", "r1"]);
    assert.deepEqual(forward, backward);
  });
});

describe("acceptedRoutes: values that reach nginx", () => {
  const injection = "example.com; } server { listen 8081; location / { return 200 'pwned'; }";

  it("rejects a route whose host the schema refuses (a loosened CRD let it in), writing none of it", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("evil", { host: injection, service: "web", port: 80 }),
        route("good", { host: "www.example.com", service: "web", port: 80 }),
      ],
      [service("web", [{ port: 80 }])],
    );
    assert.deepEqual(names(accepted), ["good"]);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason]),
      [["evil", "InvalidSpec"]],
    );
    assert.match(rejected[0]?.message ?? "", /^spec\.host is not allowed \(.+\); nothing of this route/);
  });

  it("rejects paths and backends with characters nginx would read as syntax", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("path", { host: "a.example.com", path: "/x { return 200; }", service: "web", port: 80 }),
        route("svc", { host: "b.example.com", service: "web;", port: 80 }),
      ],
      [service("web", [{ port: 80 }]), service("web;", [{ port: 80 }])],
    );
    assert.deepEqual(accepted, []);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason, r.message.split(" ")[0]]),
      [
        ["path", "InvalidSpec", "spec.path"],
        ["svc", "InvalidSpec", "spec.backend.service"],
      ],
    );
  });

  it("rejects a route nginx would get wrong as InvalidSpec, naming the hazard the webhook names", () => {
    const { accepted, rejected } = acceptedRoutes(
      [
        route("dots", { host: "a.example.com", path: "/api/../admin", service: "web", port: 80 }),
        route("ip", { host: "10.0.0.7", service: "web", port: 80 }),
        route("good", { host: "a.example.com", path: "/api", service: "web", port: 80 }),
      ],
      [service("web", [{ port: 80 }])],
    );
    assert.deepEqual(names(accepted), ["good"]);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason, r.message]),
      [
        [
          "dots",
          "InvalidSpec",
          `spec.path ${routeHazards({ host: "a.example.com", path: "/api/../admin" })[0]?.message}; nothing of this route is written to the nginx configuration`,
        ],
        [
          "ip",
          "InvalidSpec",
          `spec.host ${routeHazards({ host: "10.0.0.7" })[0]?.message}; nothing of this route is written to the nginx configuration`,
        ],
      ],
    );
  });
});

describe("acceptedRoutes: the configuration budget", () => {
  const web = service("web", [{ port: 80 }]);
  const large = (i: number, createdAt = 0) => {
    const { host, path } = largeRouteSpec(i);
    return route(`r${i}`, { host, path, service: "web", port: 80 }, createdAt);
  };
  /** The budget that holds exactly these routes. */
  const budgetFor = (...routes: ReturnType<typeof route>[]) => {
    const meter = new ConfigMeter();
    for (const r of acceptedRoutes(routes, [web]).accepted) meter.add(r);
    return meter.bytes;
  };

  it("admits routes oldest first while the configuration fits; the younger ones get ConfigurationFull", () => {
    const routes = [large(1, 4), large(2, 3), large(3, 2), large(4, 1)];
    const budget = budgetFor(routes[3]!, routes[2]!);
    const { accepted, rejected } = acceptedRoutes(routes, [web], budget);
    assert.deepEqual(names(accepted), ["r3", "r4"]);
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason]),
      [
        ["r1", "ConfigurationFull"],
        ["r2", "ConfigurationFull"],
      ],
    );
    assert.equal(
      rejected[0]?.message,
      `the nginx configuration of MyProxy edge is full: routes are admitted oldest first while it stays ` +
        `within ${budget} bytes (a ConfigMap holds at most 1 MiB), and this one would exceed it`,
    );
  });

  it("leaves out every route younger than the first that does not fit, even a smaller one", () => {
    const small = route("small", { host: "s.example.com", service: "web", port: 80 }, 9);
    const routes = [large(1, 1), large(2, 2), small];
    const budget = budgetFor(routes[0]!) + 600;
    const { accepted, rejected } = acceptedRoutes(routes, [web], budget);
    assert.deepEqual(names(accepted), ["r1"]);
    assert.deepEqual(names(rejected), ["r2", "small"]);
  });

  it("reports a younger route of an admitted host and path as Conflict; one left out claims nothing", () => {
    const twin = (i: number, createdAt: number) => {
      const { host, path } = largeRouteSpec(i);
      return route(`twin-of-r${i}`, { host, path, service: "web", port: 80 }, createdAt);
    };
    const routes = [large(1, 1), large(2, 2), twin(1, 3), twin(2, 4)];
    const { rejected } = acceptedRoutes(routes, [web], budgetFor(routes[0]!));
    assert.deepEqual(
      rejected.map((r) => [r.route.metadata.name, r.reason]),
      [
        ["r2", "ConfigurationFull"],
        ["twin-of-r1", "Conflict"],
        ["twin-of-r2", "ConfigurationFull"],
      ],
    );
  });

  it("keeps the configuration within the budget, and fills it to within one route", () => {
    const routes = Array.from({ length: 320 }, (_, i) => large(i));
    const { accepted, rejected } = acceptedRoutes(routes, [web]);
    const config = nginxConfig({ proxy: `${NS}/edge`, port: 80, routes: accepted });
    const largest = Math.max(...accepted.map((a) => new ConfigMeter().with(a)));
    assert.ok(config.length <= CONFIG_BUDGET_BYTES, `${config.length} bytes`);
    assert.ok(config.length > CONFIG_BUDGET_BYTES - largest, `${config.length} bytes`);
    assert.equal(accepted.length + rejected.length, 320);
    assert.ok(rejected.every((r) => r.reason === "ConfigurationFull"));
    // All were created in the same second, so the names order them.
    const lastIn = names(accepted).sort().at(-1) ?? "";
    assert.ok(
      names(rejected).every((name = "") => name > lastIn),
      "the youngest are left out",
    );
  });
});
