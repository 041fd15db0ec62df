// #region election
import { Client } from "kubeloop";
import { LeaderElector } from "kubeloop/election";

const client = await Client.load();
const elector = new LeaderElector({
  client,
  name: "my-operator-lock",
  namespace: "my-operator-system",
  identity: `${process.env.POD_NAME}_${process.env.POD_UID}`,
  // `signal`: stop taking work and drain (the Lease stays renewed until this returns);
  // `lost`: leadership is gone, stop writing at once.
  onStartedLeading: (signal, lost) => runControllers(signal, lost),
  onNewLeader: (who) => console.log(`leader is ${who}`),
});
const shutdown = new AbortController();
process.once("SIGTERM", () => shutdown.abort());
await elector.run(shutdown.signal); // campaigns, leads; on SIGTERM drains, then releases the Lease
// #endregion

declare function runControllers(signal: AbortSignal, lost: AbortSignal): Promise<void>;
