/** The event feed's settings: what `createSwitchboard`'s `events` takes (docs/events.md). */
export interface EventFeedConfig {
  /** How often a live stream also looks for new events, the bus being best effort (default 1 s). */
  readonly pollMs?: number;
  /** How long a quiet stream waits before it sends a keep-alive comment (default 15 s). */
  readonly keepAliveMs?: number;
  /**
   * How often the credentials of open streams are checked again; a stream whose credentials are no
   * longer accepted (revoked, expired) ends (default 30 s).
   */
  readonly credentialCheckMs?: number;
}
