import type { Client } from "kubeloop";
import { LeaderElector, leaseName } from "kubeloop/election";

declare const client: Client;
declare const podName: string;
declare const podUid: string;
declare const shutdownSignal: AbortSignal;
declare function runControllers(signal: AbortSignal, lost: AbortSignal): Promise<void>;

// #region LeaderElector
const elector = new LeaderElector({
  client,
  name: "my-operator",
  namespace: "operators",
  identity: `${podName}_${podUid}`,
  // `signal`: drain (the Lease stays renewed until this returns); `lost`: stop writing at once.
  onStartedLeading: (signal, lost) => runControllers(signal, lost),
});
await elector.run(shutdownSignal); // on abort: the work drains, then the Lease is released
// #endregion

// #region leaseName
leaseName("widgets"); // "widgets"
leaseName("Widgets_Operator"); // "widgets-operator-" + 16 hex digits
// #endregion
