import { loadConfig } from "kubeloop/client";

// #region client-config
const conn = await loadConfig({ context: "dev" });
const auth = await conn.credentials.get();
// conn.server, conn.tls and auth.clientCertificate configure the TLS connection
// (one pool per auth.identity); auth.headers go on every request.
// After a 401:
conn.credentials.invalidate(auth);
const fresh = await conn.credentials.get();
if (fresh !== auth) {
  // retry once with the new credentials
}
// #endregion
