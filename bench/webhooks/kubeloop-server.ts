/**
 * The kubeloop contender of bench/webhooks.ts: a `WebhookServer` serving {@link portCheck} over
 * HTTPS on 127.0.0.1:BENCH_PORT with `tls.crt` and `tls.key` of BENCH_CERT_DIR (watched, as a
 * deployed operator's), as its own process. The check reads nothing, so the client and the cache
 * are never called: the client points nowhere, the cache refuses. Prints "BENCH ready" once it
 * listens; stops on SIGTERM.
 */
import { type AuthSnapshot, Client } from "../../src/client/index.ts";
import { certificateFilesIn, WebhookServer } from "../../src/webhook/index.ts";
import { portCheck } from "./check.ts";

const nobody: AuthSnapshot = { headers: {}, identity: "nobody" };
const client = new Client({
  server: "https://127.0.0.1:1",
  namespace: "default",
  source: "kubeconfig",
  tls: { insecure: true },
  credentials: { get: async () => nobody, invalidate: () => {} },
});
const webhooks = new WebhookServer({
  webhooks: [portCheck],
  tls: certificateFilesIn(process.env.BENCH_CERT_DIR ?? "."),
  client,
  cache: { reader: () => Promise.reject(new Error("the benchmark's check reads no cache")) },
  host: "127.0.0.1",
  port: Number(process.env.BENCH_PORT),
});
await webhooks.listen();
console.log("BENCH ready");
process.once("SIGTERM", () => void webhooks.close().then(() => process.exit(0)));
