/**
 * The nginx configuration of a MyProxy, generated from its accepted routes: pure and deterministic
 * (the same routes give the same bytes, in whatever order they come), so its hash changes exactly
 * when the configuration does.
 */
import { createHash } from "node:crypto";
import type { ProxyRouteObject } from "./api.ts";
import type { AcceptedRoute } from "./routes.ts";

/** The file name of the configuration, in the ConfigMap and in `/etc/nginx/conf.d`. */
export const CONFIG_FILE = "default.conf";

/**
 * The most bytes a configuration may take: 900 KiB. The apiserver refuses a ConfigMap whose data
 * exceeds 1 MiB (422), and a larger request outright (413); the rest leaves room for the object's
 * metadata. `acceptedRoutes` (`routes.ts`) admits routes, oldest first, while the configuration fits.
 */
export const CONFIG_BUDGET_BYTES = 900 * 1024;

/** What the configuration is generated from. */
export interface NginxInput {
  /** The MyProxy, as `namespace/name`, named in the header comment. */
  proxy: string;
  /** The port nginx listens on. */
  port: number;
  /** The accepted routes. */
  routes: readonly AcceptedRoute[];
}

const indent = (depth: number, line: string) => (line ? `${"    ".repeat(depth)}${line}` : "");

/**
 * `default.conf` for `/etc/nginx/conf.d`: a header naming the generator and the routes, a default
 * server answering `/healthz` (for the readiness probe) and 404 for unknown hosts, then one server
 * per host with one location per path prefix, each proxying to its backend Service.
 */
export function nginxConfig(input: NginxInput): string {
  const routes = [...input.routes].sort(byHostAndPath);
  const hosts = [...new Set(routes.map((r) => r.route.spec.host))];
  const blocks = [
    header(input.proxy, routes),
    HASH_SETTINGS,
    defaultServer(input.port),
    ...hosts.map((host) =>
      hostServer(
        input.port,
        host,
        routes.filter((r) => r.route.spec.host === host),
      ),
    ),
  ];
  return `${blocks.join(BLOCK_SEPARATOR)}\n`;
}

/** The names of the routes a configuration's header lists, in its order: the routes it serves. */
export function routesListed(config: string): string[] {
  return [...config.matchAll(/^# {3}ProxyRoute ([a-z0-9.-]+):/gm)].map((m) => m[1] ?? "");
}

const listed = new WeakMap<object, ReadonlySet<string>>();

/**
 * {@link routesListed} as a set, remembered per `holder` (the cached ConfigMap, replaced on every
 * change), so that each of a MyProxy's routes asks in constant time.
 */
export function routesServed(holder: object, config: string): ReadonlySet<string> {
  let names = listed.get(holder);
  if (!names) {
    names = new Set(routesListed(config));
    listed.set(holder, names);
  }
  return names;
}

/** The route's path prefix (`/` when the stored object has none, as the CRD defaults it). */
export function pathOf(route: ProxyRouteObject): string {
  return route.spec.path ?? "/";
}

/** Code-point order: the same on every machine, whatever its locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders accepted routes by host, then path: the order of the configuration. */
export function byHostAndPath(a: AcceptedRoute, b: AcceptedRoute): number {
  return compare(a.route.spec.host, b.route.spec.host) || compare(pathOf(a.route), pathOf(b.route));
}

/**
 * The size of a configuration counted route by route, without generating it, for any MyProxy (its
 * name and port counted at their longest): never less than the length of {@link nginxConfig} for
 * the routes added, and more by at most a few hundred bytes (a shorter name and port, the digits of
 * the route count, and per host with a route for `/` the 404 fallback it does not need). Every value
 * written is ASCII (checked against the ProxyRoute schema first), so characters are bytes.
 */
export class ConfigMeter {
  #bytes = BASE_BYTES;
  readonly #hosts = new Set<string>();

  /** The bytes counted so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The bytes with `accepted` added: its header line, its location and, for a new host, its server. */
  with(accepted: AcceptedRoute): number {
    const { host } = accepted.route.spec;
    const server = this.#hosts.has(host)
      ? 0
      : BLOCK_SEPARATOR.length + hostServer(WIDEST_PORT, host, []).length;
    return this.#bytes + server + linesBytes([routeLine(accepted), "", ...location(accepted)]);
  }

  /** Counts `accepted` in. */
  add(accepted: AcceptedRoute): void {
    this.#bytes = this.with(accepted);
    this.#hosts.add(accepted.route.spec.host);
  }
}

/** The sha256 of a configuration, hex: the pod template annotation that rolls the pods. */
export function configHash(config: string): string {
  return createHash("sha256").update(config).digest("hex");
}

const BLOCK_SEPARATOR = "\n\n";

/**
 * Room in nginx's table of server names for hosts up to 253 characters (the ProxyRoute schema's
 * limit; nginx's default of 64 refuses a host of about 60) and for every host a configuration of
 * {@link CONFIG_BUDGET_BYTES} can hold. They are `http` directives: the file is included there.
 */
const HASH_SETTINGS = ["server_names_hash_bucket_size 1024;", "server_names_hash_max_size 4096;"].join("\n");

/** The longest `namespace/name` of a MyProxy (two DNS labels) and the widest port, for {@link ConfigMeter}. */
const WIDEST_PROXY = `${"n".repeat(63)}/${"m".repeat(63)}`;
const WIDEST_PORT = 65535;
/** Room for the digits the route count adds to `# Routes (0):` (up to 9,999,999 routes). */
const COUNT_DIGITS = 6;
const BASE_BYTES = nginxConfig({ proxy: WIDEST_PROXY, port: WIDEST_PORT, routes: [] }).length + COUNT_DIGITS;

function linesBytes(lines: readonly string[]): number {
  return lines.reduce((bytes, line) => bytes + line.length + 1, 0);
}

function header(proxy: string, routes: readonly AcceptedRoute[]): string {
  const lines = [
    `# Generated by the myproxy operator (kubeloop) for MyProxy ${proxy}.`,
    "# Do not edit: the operator reverts any change to this file.",
    `# Routes (${routes.length}):`,
    ...routes.map(routeLine),
  ];
  return lines.join("\n");
}

function routeLine({ route, upstream }: AcceptedRoute): string {
  return `#   ProxyRoute ${route.metadata.name}: ${route.spec.host}${pathOf(route)} -> ${upstream.url}`;
}

function defaultServer(port: number): string {
  return [
    "server {",
    indent(1, `listen ${port} default_server;`),
    indent(1, "server_name _;"),
    "",
    indent(1, "location = /healthz {"),
    indent(2, "access_log off;"),
    indent(2, 'return 200 "ok\\n";'),
    indent(1, "}"),
    "",
    indent(1, "location / {"),
    indent(2, "return 404;"),
    indent(1, "}"),
    "}",
  ].join("\n");
}

/**
 * One host's server. Without a route for `/`, requests outside every route get 404, as for an
 * unknown host: nginx would otherwise serve files from its default root (the image's welcome page).
 */
function hostServer(port: number, host: string, routes: readonly AcceptedRoute[]): string {
  const rest = routes.some((r) => pathOf(r.route) === "/")
    ? []
    : ["", indent(1, "location / {"), indent(2, "return 404;"), indent(1, "}")];
  return [
    "server {",
    indent(1, `listen ${port};`),
    indent(1, `server_name ${host};`),
    ...routes.flatMap((r) => ["", ...location(r)]),
    ...rest,
    "}",
  ].join("\n");
}

function location({ route, upstream }: AcceptedRoute): string[] {
  return [
    indent(1, `# ProxyRoute ${route.metadata.name}`),
    indent(1, `location ${pathOf(route)} {`),
    indent(2, `proxy_pass ${upstream.url};`),
    indent(2, "proxy_set_header Host $host;"),
    indent(2, "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"),
    indent(2, "proxy_set_header X-Forwarded-Proto $scheme;"),
    indent(1, "}"),
  ];
}
