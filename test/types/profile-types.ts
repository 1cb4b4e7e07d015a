/**
 * Type-level tests of the built-in profiles' table (profiles/catalogue-profile.ts), compiled by
 * `npm run build` (tsconfig.json includes test/types) and `npm run typecheck:test`; nothing here
 * runs. Each `@ts-expect-error` marks an expectation that must NOT compile, and tsc fails if one
 * ever does ("unused @ts-expect-error directive"). The entries without the directive are the
 * controls: the same shapes with a known id and one of its labels, which must compile, so that
 * each error is about the id or the label and nothing else.
 */
import { observed } from '../../profiles/basis.js';
import type {
  CatalogueProfile,
  ExpectationOf,
  Expectations,
  RecordedOutcomes,
} from '../../profiles/catalogue-profile.js';
import type { Decisions } from '../../profiles/observed-on-fixture.js';

const REF = 'https://www.postgresql.org/docs/15/sql-set.html';

/** Control: known ids, each with one of its own labels, per-parameter outcomes included. */
export const known: Expectations = {
  'session/set-leak': { outcome: 'leaked', ref: REF },
  'cancel/routing': { outcome: 'misrouted', ref: REF },
  'session/tracked-parameter': { outcome: 'tracked', ref: REF, parameters: { timezone: 'tracked' } },
};

export const unknownId: Expectations = {
  // @ts-expect-error 'session/set-leek' is not a check id of the catalogue.
  'session/set-leek': { outcome: 'leaked', ref: REF },
};

export const foreignLabel: Expectations = {
  // @ts-expect-error 'routed' is cancel/routing's label, not one of session/set-leak's.
  'session/set-leak': { outcome: 'routed', ref: REF },
};

export const foreignParameterLabel: Expectations = {
  // @ts-expect-error a per-parameter outcome must be one of the check's labels too.
  'session/tracked-parameter': { outcome: 'tracked', ref: REF, parameters: { timezone: 'misrouted' } },
};

/** Control: an expectation written apart, typed by its check. */
export const apart: ExpectationOf<'capacity/queueing'> = { outcome: 'queued', ref: REF };
// @ts-expect-error 'leaked' is not one of capacity/queueing's labels.
export const apartWrong: ExpectationOf<'capacity/queueing'> = { outcome: 'leaked', ref: REF };

const base = { name: 'types-example', title: 't', pooler: 'p', mode: 'transaction', versions: '1', ref: REF };

/** Control: a whole profile through a basis marker, as profiles/*.ts write them. */
export const profile: CatalogueProfile = { ...base, expect: observed('nowhere', known) };

export const profileUnknownId: CatalogueProfile = {
  ...base,
  expect: observed('nowhere', {
    // @ts-expect-error an unknown id inside a basis marker is caught too.
    'temp/temp-tables': { outcome: 'leaked', ref: REF },
  }),
};

export const profileForeignLabel: CatalogueProfile = {
  ...base,
  expect: observed('nowhere', {
    // @ts-expect-error 'multiplexed' belongs to capacity/multiplexing, not temp/temp-table.
    'temp/temp-table': { outcome: 'multiplexed', ref: REF },
  }),
};

/** Control: the derived table's shape (profiles/fixture-outcomes.ts), with an inconclusive run. */
export const recorded = { 'session/set-leak': 'leaked', 'cancel/routing': null } as const satisfies RecordedOutcomes;
export const recordedWrong = {
  // @ts-expect-error a recorded outcome is held to its check's labels too.
  'session/set-leak': 'routed',
} as const satisfies RecordedOutcomes;

/** Control: what a fixture's profile decides (a reference, per-parameter outcomes), no outcome. */
export const decided: Decisions = { 'session/tracked-parameter': { ref: REF, parameters: { timezone: 'tracked' } } };
export const decidedWrong: Decisions = {
  // @ts-expect-error the outcome of a fixture's check is its recording's, not a person's.
  'session/set-leak': { outcome: 'leaked', ref: REF },
};

/**
 * Control: the wire-level checks (issue 38) are typed as the others, each with one of its own
 * labels; the labels they share in name (`leaked`, `stalled`...) are no way round it.
 */
export const wire: Expectations = {
  'pipeline/transactions': { outcome: 'ordered', ref: REF },
  'pipeline/prepared': { outcome: 'failed', ref: REF },
  'pipeline/error': { outcome: 'recovered', ref: REF },
  'pipeline/disconnect': { outcome: 'clean', ref: REF },
  'copy/in-out': { outcome: 'works', ref: REF },
  'prepared/close': { outcome: 'honoured', ref: REF },
  'protocol/negotiation': { outcome: 'served', ref: REF },
};

export const wireForeignLabel: Expectations = {
  // @ts-expect-error 'ordered' is pipeline/transactions' label, not one of pipeline/error's.
  'pipeline/error': { outcome: 'ordered', ref: REF },
  // @ts-expect-error 'leaked' is a label of the other pipeline checks, not of pipeline/disconnect.
  'pipeline/disconnect': { outcome: 'leaked', ref: REF },
  // @ts-expect-error 'malformed' is not one of copy/in-out's labels.
  'copy/in-out': { outcome: 'malformed', ref: REF },
  // @ts-expect-error 'works' is not one of prepared/close's labels.
  'prepared/close': { outcome: 'works', ref: REF },
  // @ts-expect-error 'stale' is prepared/close's label, not one of protocol/negotiation's.
  'protocol/negotiation': { outcome: 'stale', ref: REF },
};
