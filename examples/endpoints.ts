import { serveEndpoints } from "kubeloop/endpoints";
import type { Registry } from "prom-client";

declare const registry: Registry;
declare const synced: () => boolean;

// #region endpoints
const { server, port } = await serveEndpoints("127.0.0.1", 8081, {
  health: { healthz: { ping: () => true }, readyz: { "caches-synced": synced } },
  metrics: registry,
});
// #endregion
console.log(port);
server.close();
