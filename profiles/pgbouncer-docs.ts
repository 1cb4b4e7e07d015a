/**
 * PgBouncer's own documentation, as cited by the PgBouncer profiles, pinned: the manual and the
 * changelog at a release tag of the pgbouncer repository, the feature map (published on the
 * website, from the pgbouncer.github.io repository) at a commit. The website itself always shows
 * the newest release, so a link to it would change under an older profile.
 */

/** The feature map as 1.18 to 1.20 were documented ("Protocol-level prepared plans: No" in transaction pooling). */
const FEATURES_BEFORE_121 = 'pgbouncer/pgbouncer.github.io@1ce5540a:features.md';
/** The feature map after November 2023 ("Yes, with max_prepared_statements" from 1.21). */
const FEATURES_FROM_121 = 'pgbouncer/pgbouncer.github.io@f638e43d:features.md';

/** References into one release's documentation; `tag` is a pgbouncer release tag such as `pgbouncer_1_18_0`. */
export function pgbouncerDocs(tag: string, features: string) {
  const config = `pgbouncer/pgbouncer@${tag}:doc/config.md`;
  return {
    /** "SQL feature map for pooling modes": Yes / Never per feature and mode. */
    features,
    config,
    /** Not run in transaction pooling (since 1.7): session state stays on the server connection. */
    resetQuery: `${config}#server_reset_query`,
    trackExtra: `${config}#track_extra_parameters`,
    maxPrepared: `${config}#max_prepared_statements`,
    poolMode: `${config}#pool_mode`,
    queryWait: `${config}#query_wait_timeout`,
    changelog: `pgbouncer/pgbouncer@${tag}:NEWS.md`,
    featuresBefore121: FEATURES_BEFORE_121,
  } as const;
}

/** PgBouncer 1.18, as Debian 12 ships it and the fixtures run it. */
export const PGB = pgbouncerDocs('pgbouncer_1_18_0', FEATURES_BEFORE_121);
export const PGB_121 = pgbouncerDocs('pgbouncer_1_21_0', FEATURES_FROM_121);
export const PGB_122 = pgbouncerDocs('pgbouncer_1_22_0', FEATURES_FROM_121);
export const PGB_124 = pgbouncerDocs('pgbouncer_1_24_0', FEATURES_FROM_121);
export const PGB_125 = pgbouncerDocs('pgbouncer_1_25_2', FEATURES_FROM_121);
export const PGB_126 = pgbouncerDocs('pgbouncer_1_26_0', FEATURES_FROM_121);
