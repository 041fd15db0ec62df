// #region election
import { Client } from "kubeloop";
import { LeaderElector } from "kubeloop/election";

const client = await Client.load();
const elector = new LeaderElector({
  client,
  name: "my-operator-lock",
  namespace: "my-operator-system",
  identity: `${process.env.POD_NAME}_${process.env.POD_UID}`,
  onStartedLeading: (signal) => startControllers(signal), // stop when `signal` aborts
  onNewLeader: (who) => console.log(`leader is ${who}`),
});
const shutdown = new AbortController();
process.once("SIGTERM", () => shutdown.abort());
await elector.run(shutdown.signal); // campaigns, leads, releases the Lease on SIGTERM
// #endregion

declare function startControllers(signal: AbortSignal): Promise<void>;
