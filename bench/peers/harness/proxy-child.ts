/**
 * Runs one counting proxy (kubeloop's fault proxy, no faults) in a process of its own, so the
 * runner's own work (creating objects, tracking convergence) never delays a contender's requests.
 * Talks to the runner over IPC: it receives the upstream credentials and serving certificate,
 * answers `ready` with its kubeconfig, then serves `counts`, `reset` and `stop`.
 */
import { startProxy, type UpstreamCredentials } from "../../../src/testing/proxy/index.ts";

interface Setup {
  upstream: UpstreamCredentials;
  serving: { certPem: string; keyPem: string; caPem: string };
  clientCa: string;
}

type Message = { id: number; type: "counts" | "reset" | "stop" };

process.once("message", async (setup: Setup) => {
  const proxy = await startProxy({ ...setup, historySize: 1 });
  const kubeconfig = proxy.kubeconfig();
  process.send?.({ type: "ready", url: proxy.url, kubeconfig });
  process.on("message", async (msg: Message) => {
    if (msg.type === "counts") process.send?.({ id: msg.id, counts: proxy.counts() });
    if (msg.type === "reset") {
      proxy.resetCounts();
      process.send?.({ id: msg.id });
    }
    if (msg.type === "stop") {
      await proxy.stop();
      process.send?.({ id: msg.id });
      process.exit(0);
    }
  });
});
