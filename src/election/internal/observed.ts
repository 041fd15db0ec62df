import { type LeaseRecord, recordKey } from "../lease.ts";

/**
 * The last Lease record this candidate saw and when, by its own monotonic clock (as client-go
 * records `observedTime` with its own clock). A holder's lease is valid until
 * `leaseDurationSeconds` after the record was last seen to change; the holder's `renewTime` is
 * never compared with the local clock, so neither clock skew between machines nor a jump of the
 * local wall clock matters (only differing clock rates do).
 */
export class ObservedRecord {
  #key: string | undefined;
  #record: LeaseRecord | undefined;
  #at = 0;

  /** The last record seen, if any. */
  get record(): LeaseRecord | undefined {
    return this.#record;
  }

  /** The holder of the last record seen; `""` when none. */
  get holder(): string {
    return this.#record?.holderIdentity ?? "";
  }

  /** Notes `record` as seen at `now` (monotonic ms); the observation time moves only when the record changed. */
  observe(record: LeaseRecord, now: number): void {
    const key = recordKey(record);
    if (key === this.#key) return;
    this.#key = key;
    this.#record = record;
    this.#at = now;
  }

  /** Whether the holder's lease is still valid at `now` (monotonic ms), measured from the last observed change. */
  isValid(now: number): boolean {
    return this.#record !== undefined && now < this.#at + this.#record.leaseDurationSeconds * 1000;
  }
}
