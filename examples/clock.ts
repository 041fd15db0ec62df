import { FakeClock } from "kubeloop/clock";

// #region clock
const clock = new FakeClock();
const slept = clock.sleep(1000);
clock.advance(1000); // resolves `slept`
await slept;
// #endregion
