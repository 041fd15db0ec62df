/** The first-operator guide's backup store (docs/first-operator.md). */
// #region first-operator-store
/** Where backups are kept: an object store, addressed by a destination and a prefix per Backup. */
export interface BackupStore {
  /** Deletes every backup under `prefix` at `destination`. Idempotent: deleting nothing succeeds. */
  deleteAll(destination: string, prefix: string): Promise<void>;
}

/** A stand-in that remembers what it deleted. Put your S3, GCS or NFS client behind the same method. */
class RecordingStore implements BackupStore {
  readonly deleted: string[] = [];

  deleteAll(destination: string, prefix: string): Promise<void> {
    this.deleted.push(`${destination}/${prefix}`);
    return Promise.resolve();
  }
}

export const store = new RecordingStore();
// #endregion
