/** The first-operator guide's operator declaration (docs/first-operator.md). */
// #region first-operator-operator
import { defineOperator } from "kubeloop";
import { Backup } from "./api.ts";
import { backupController } from "./controller.ts";

export default defineOperator({
  name: "my-operator",
  kinds: [Backup],
  setup: (manager) => void backupController(manager),
});
// #endregion
