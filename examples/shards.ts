import type { Client } from "kubeloop";
import { untilAborted } from "kubeloop/clock";
import { ShardCoordinator } from "kubeloop/shards";

declare const client: Client;
declare const signal: AbortSignal;

// #region shards
const coordinator = new ShardCoordinator({
  client,
  name: "widgets",
  namespace: "widgets-system",
  shards: 16,
  onShard: (_shard, signal) => untilAborted(signal), // work on the shard's range until given up
  onError: (err, phase) => console.error(phase, err),
});
await coordinator.run(signal);
// #endregion
