import type { Storage, Stores } from '../storage/contract/index.js';

/** Runs units of storage work in shared transactions; see {@link createBatchedTransactions}. */
export type BatchedTransactions = (work: (tx: Stores) => Promise<void>) => Promise<void>;

interface Unit {
  readonly work: (tx: Stores) => Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Work queued while a transaction is being written goes into the next one together, so under load a
 * batch of attempt outcomes costs one commit and one pooled connection instead of one each. Should a
 * shared transaction fail, its units run again one by one, so a bad unit fails only itself. Each unit
 * must therefore be safe to run again after a rollback.
 */
export function createBatchedTransactions(storage: Pick<Storage, 'transaction'>): BatchedTransactions {
  let queue: Unit[] = [];
  let writing = false;

  async function write(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await storage.transaction(async (tx) => {
          for (const unit of batch) await unit.work(tx);
        });
        for (const unit of batch) unit.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        for (const unit of batch) await storage.transaction(unit.work).then(unit.resolve, unit.reject);
      }
    }
    writing = false;
  }

  return (work) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ work, resolve, reject });
      if (!writing) void write();
    });
}
