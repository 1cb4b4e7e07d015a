/**
 * What the lifelines and marks of a sequence diagram mean, for the legend beside each diagram
 * (HTML) and under it (Markdown). Session labels are the steering code's (engine/steering/,
 * INTERPRETING.md section 1); a label is explained by its letters, so `O3` reads as `O1`.
 */

/** Session label (letters only) and what that client is for. */
const ROLES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^run$/, 'pooltest itself: notes such as the markers of the run, not a connection'],
  [/^A$/, 'the client whose state or action the check tests'],
  [/^B$/, 'a second client that competes with A (for a lock, a cancel)'],
  [/^O\d*$/, "candidate observers, one at a time: the one that lands on A's backend looks for A's state"],
  [/^H\d*$/, 'holders: keep a backend busy so that the next client must go elsewhere'],
  [/^L\d*$/, 'a later client that looks at a backend after A left it (L alone: a probe of the limits)'],
  [/^N$/, 'the notifier: sends the NOTIFY'],
  [/^C\d*$/, "extra clients: the cleaner that revisits A's old backend, or the crowd of a capacity check"],
  [/^U$/, 'the setup client: creates (and later drops) a role or schema the check needs'],
  [/^V$/, 'the verifier: a fresh client that checks what was committed'],
  [/^D$/, 'a direct connection to PostgreSQL (--direct), not through the pooler'],
  [/^T\d*$/, 'clients through the target (the pooler)'],
  [/^K\d*$/, 'the clients of the burst'],
  [/^S$/, 'a client that sends its statements in one message'],
  [/^X$/, 'the connection that sends the cancel request'],
  [/^(OLD|NEW)$/, 'a login with the old or the new password'],
  [/^R$/, "the client that reloads the pooler's configuration"],
];

/** What the session labelled `label` is for, or a generic line for a label this list lacks. */
export function sessionRole(label: string): string {
  const plain = label.replace(/^.*:/, '');
  return ROLES.find(([re]) => re.test(plain))?.[1] ?? 'a client of the check';
}

/** The marks of the drawing, each with its meaning (keys are the legend's own words). */
export const MARKS: ReadonlyArray<readonly [string, string]> = [
  ['pid N', 'a backend (server process), as pg_backend_pid() reported it'],
  [
    'pid not read',
    'steps that did not read their backend (a COMMIT, a wait, a failed step): grey dot answered, red cross failed',
  ],
  ['dashed arrow', 'the step did not read its backend but ran inside the transaction its client had open there'],
  ['red dot', 'the step that created the state, on the backend that keeps it'],
  [
    'pink band',
    'the decisive step: what the outcome turns on (state seen by another client, the error, the notification)',
  ],
  ['blue band', 'the decisive step when nothing crossed: another client landed on that backend and found nothing'],
  ['thick line', "the state's path down its backend, from where it was created to where another client met it"],
];
