/**
 * protocol/negotiation: can a client that asks for protocol 3.2, or greases the handshake,
 * connect through the target?
 *
 *   V (raw socket, pooltest's own writer and guarded reader, no node-postgres):
 *       StartupMessage version 196610 (3.2); authenticate as asked (trust, cleartext, md5, SCRAM)
 *       served without NegotiateProtocolVersion: BackendKeyData's key must be longer than 4 bytes;
 *         Query SELECT pg_sleep(30), and on a second socket CancelRequest(pid, the whole key)
 *         -> the query must fail with 57014
 *       after NegotiateProtocolVersion: Query SELECT 1 must answer
 *   G (raw socket): StartupMessage version 3.9999 (3 << 16 | 9999) with
 *       `_pq_.test_protocol_negotiation=true`; then as V
 *
 * libpq 18 asks for 3.2 with `max_protocol_version=latest`, drivers are adding it, and
 * PostgreSQL 19's libpq greased every connection during its beta to find middleware that
 * mishandles the handshake. A pooler that refuses or drops such a startup leaves that client
 * unable to connect at all. The check opens no transaction and sets nothing: it leaves no state,
 * needs no holders and no landing (it is about the handshake, not a backend).
 *
 * The two clients give one outcome, with the facts of both (`v32*`, `grease*`): a breaking
 * answer to either (the worst of malformed < dropped < refused) is the outcome, so a 3.2 client
 * served while the grease is refused reads `refused`; when both connect, the 3.2 client's
 * result names it (`served` or `negotiated`), since a grease can only be negotiated.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { stepOf, valueOf } from '../../engine/record/step-reading.js';
import {
  probeNegotiation,
  type NegotiationFacts,
  type NegotiationLabel,
} from '../../engine/session/negotiation-probe.js';
import { GREASE_OPTION, PROTOCOL_3_2, PROTOCOL_GREASE } from '../../engine/session/raw-startup.js';
import type { Judgement, StepRecord } from '../../engine/types.js';

/** The tags of this check's own steps, written by its scenario and read by its judge. */
const TAGS = {
  v32: 'negotiation.v32',
  grease: 'negotiation.grease',
} as const;

const AVOID =
  "Clients that hit this can keep to protocol 3.0: `max_protocol_version=3.0` in the connection string (libpq 18 and later), or the driver's own protocol-version option.";

const OUTCOMES = {
  served: {
    means:
      'the target spoke protocol 3.2: a cancel key longer than 4 bytes, and a CancelRequest with the whole key stopped the running query (57014)',
  },
  negotiated: {
    means: 'the target answered NegotiateProtocolVersion and the session went on at 3.0: a query answered',
  },
  refused: {
    means: 'the target answered the startup with an ErrorResponse (kept verbatim, with its SQLSTATE)',
    advice: `The pooler rejects a startup newer than 3.0; PgBouncer negotiates since 1.23.0 (upgrade). ${AVOID}`,
  },
  dropped: {
    means: 'the target reset or closed the connection without a word',
    advice: `The pooler drops a startup newer than 3.0 (Odyssey up to 1.5.2-rc1, pgagroal 2.1.0 under grease, by their trackers); check its releases for protocol negotiation. ${AVOID}`,
  },
  malformed: {
    means: 'the target answered with bytes that break the protocol (PROTOCOL_VIOLATION evidence in the facts)',
    advice: `The pooler answered a 3.2 or greased startup with a malformed message: report it to its maintainers with the bytes. ${AVOID}`,
  },
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

/** Worst first: the order the two clients' results are combined in. */
const RANK: readonly Label[] = ['malformed', 'dropped', 'refused', 'negotiated', 'served'];

export const negotiation = defineCheck({
  id: 'protocol/negotiation',
  title: 'a client asking for protocol 3.2, or greasing the handshake, can connect',
  summary:
    'raw startups for 3.2 and for 3.9999 with an unknown `_pq_.` option: served (proven by a cancel), negotiated down, refused or dropped',
  severity: 'availability',
  docs: [
    'https://www.postgresql.org/docs/18/protocol-overview.html#PROTOCOL-VERSIONS',
    'https://www.postgresql.org/docs/18/protocol-message-formats.html (NegotiateProtocolVersion, BackendKeyData)',
    'https://wiki.postgresql.org/wiki/Grease',
  ],
  outcomes: OUTCOMES,
  leavesNoState: 'two handshakes, SELECT 1 and a cancelled pg_sleep: nothing is set or created',
  skipIf: (ctx) =>
    ['require', 'verify-ca', 'verify-full'].includes(ctx.target.sslmode)
      ? `the raw startup client does not speak TLS yet, and sslmode=${ctx.target.sslmode} requires it`
      : null,
  async scenario(scn) {
    const t = scn.ctx.target;
    const ep = { host: t.host, port: t.port, user: t.user, database: t.database, password: t.password };
    // One bound for the whole exchange of a client, the run's step bound (and never less than
    // the time a cancel needs to be sent after its query started).
    const bound = Math.max(scn.ctx.bounds.stepMs, 1_000);
    for (const [label, tag, version, extra] of [
      ['V', TAGS.v32, PROTOCOL_3_2, {}],
      ['G', TAGS.grease, PROTOCOL_GREASE, { [GREASE_OPTION]: 'true' }],
    ] as const) {
      const startMs = scn.recorder.now();
      const f = await probeNegotiation(ep, version, extra, bound);
      scn.note(label, tag, `(raw startup ${f.asked}${label === 'G' ? ` with ${GREASE_OPTION}` : ''})`, {
        startMs,
        facts: asFacts(f),
        ...(f.error ? { error: { code: f.error.code, severity: f.error.severity, message: f.error.message } } : {}),
        timedOut: /within \d+ ms/.test(f.why),
      });
    }
  },
  judge: judgeNegotiation,
});

function asFacts(f: NegotiationFacts): Record<string, string | number | null> {
  return {
    label: f.label,
    asked: f.asked,
    why: f.why,
    seen: f.seen.join(''),
    keyBytes: f.keyBytes ?? null,
    violationHex: f.violation?.hex ?? null,
  };
}

function read(step: StepRecord | undefined): { label: NegotiationLabel; why: string } | null {
  const label = valueOf(step, 'label');
  const why = valueOf(step, 'why');
  return typeof label === 'string' && typeof why === 'string' ? { label: label as NegotiationLabel, why } : null;
}

/**
 * Breaking beats connecting; otherwise the 3.2 client names the outcome. Either one inconclusive (no answer within the bound, an
 * authentication method the raw client lacks, a 3.2 session that did not prove itself) makes
 * the check inconclusive unless the other already shows a breaking label.
 */
export function judgeNegotiation(steps: readonly StepRecord[]): Judgement<Label> {
  const v = read(stepOf(steps, TAGS.v32));
  const g = read(stepOf(steps, TAGS.grease));
  const facts = {
    v32: v?.label ?? null,
    v32Why: v?.why ?? null,
    grease: g?.label ?? null,
    greaseWhy: g?.why ?? null,
  };
  if (!v || !g) return { outcome: null, facts, reason: `no record of the ${v ? 'grease' : '3.2'} client` };
  const reason = `3.2: ${v.why}; grease: ${g.why}`;
  // A breaking answer to either client is the outcome, even when the other did not conclude.
  const breaking = [v, g]
    .filter((x) => x.label !== 'inconclusive' && RANK.indexOf(x.label) < RANK.indexOf('negotiated'))
    .sort((a, b) => RANK.indexOf(a.label as Label) - RANK.indexOf(b.label as Label))[0];
  if (breaking) return { outcome: breaking.label as Label, facts, reason };
  const open = [v, g].find((x) => x.label === 'inconclusive');
  if (open) return { outcome: null, facts, reason: `the ${open === v ? '3.2' : 'greasing'} client: ${open.why}` };
  // Both connected. The grease can at best be negotiated (no server speaks 3.9999), so the
  // 3.2 client's result names the outcome: served only when its session proved it.
  return { outcome: v.label as Label, facts, reason };
}
