/** PgBouncer's own documentation, as cited by the PgBouncer profiles. */
const SITE = 'https://www.pgbouncer.org/';

export const PGB = {
  /** "SQL feature map for pooling modes": Yes / Never per feature and mode. */
  features: `${SITE}features.html`,
  config: `${SITE}config.html`,
  /** Not run in transaction pooling (since 1.7): session state stays on the server connection. */
  resetQuery: `${SITE}config.html#server_reset_query`,
  trackExtra: `${SITE}config.html#track_extra_parameters`,
  maxPrepared: `${SITE}config.html#max_prepared_statements`,
  poolMode: `${SITE}config.html#pool_mode`,
  queryWait: `${SITE}config.html#query_wait_timeout`,
  changelog: `${SITE}changelog.html`,
  /**
   * The feature map as 1.18 was documented: "Protocol-level prepared plans: No" in transaction
   * pooling (changed to "Yes, with max_prepared_statements" in November 2023).
   */
  featuresBefore121: 'pgbouncer/pgbouncer.github.io@1ce5540a:features.md',
} as const;
