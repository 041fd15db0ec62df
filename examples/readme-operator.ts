import { ConfigMap, controller, defineOperator } from "kubeloop";
import { Greeting } from "./readme-greeting.ts";
import { reconcileGreeting } from "./readme-reconciler.ts";

// #region readme-operator
export default defineOperator({
  name: "greetings",
  kinds: [Greeting],
  setup: (manager) => void controller(manager).for(Greeting).owns(ConfigMap).reconcile(reconcileGreeting),
});
// #endregion
