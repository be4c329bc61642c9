import { SwitchboardError } from '../../core/errors.js';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../core/storage/index.js';
import { type Journal, put, remove } from './journal.js';

/** Sessions by id hash; few enough (one per signed-in operator) that a user's are found by a scan. */
export type ConsoleSessionState = Map<string, ConsoleSessionRecord>;

export function memoryConsoleSessionStore(state: ConsoleSessionState, journal: Journal): ConsoleSessionStore {
  const deleteWhere = (gone: (session: ConsoleSessionRecord) => boolean): number => {
    let count = 0;
    for (const [idHash, session] of state) if (gone(session) && remove(journal, state, idHash)) count++;
    return count;
  };
  return {
    async insert(session) {
      if (state.has(session.idHash))
        throw new SwitchboardError('conflict', 'A console session with this id already exists.');
      put(journal, state, session.idHash, Object.freeze({ ...session }));
    },
    async get(idHash) {
      return state.get(idHash) ?? null;
    },
    async delete(idHash) {
      return remove(journal, state, idHash);
    },
    async deleteByUser(userId) {
      return deleteWhere((session) => session.userId === userId);
    },
    async deleteExpired(before) {
      return deleteWhere((session) => session.expiresAt < before);
    },
  };
}
