import type { Switchboard } from '../../dist/index.js';

/** The smoke scripts' switchboard: made, ready and started, on memory or on PostgreSQL at `databaseUrl`. */
export function smokeSwitchboard(options: {
  key: string;
  databaseUrl?: string | undefined;
}): Promise<{ switchboard: Switchboard; close(): Promise<void> }>;
