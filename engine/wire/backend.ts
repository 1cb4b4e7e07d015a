/**
 * Backend (server to client) frames decoded into values a recorded step and a judge can read:
 * rows as text, CommandComplete tags, ErrorResponse fields, ReadyForQuery's status... The frames
 * come from the validating FrameReader, so their content is already known to be well formed:
 * decoding never reads past a length.
 */
import type { Frame } from './frame-reader.js';

/** An ErrorResponse or NoticeResponse: severity, SQLSTATE and message, verbatim. */
export interface ServerError {
  severity: string;
  code: string;
  message: string;
}

/** One backend message, decoded. Authentication and startup messages are not listed: a session reads them at login. */
export type BackendItem =
  | { kind: 'ParseComplete' | 'BindComplete' | 'CloseComplete' | 'NoData' | 'PortalSuspended' | 'EmptyQueryResponse' }
  | { kind: 'CopyDone' }
  | { kind: 'ParameterDescription'; types: number[] }
  | { kind: 'RowDescription'; columns: string[] }
  | { kind: 'DataRow'; values: Array<string | null> }
  | { kind: 'CommandComplete'; tag: string }
  | { kind: 'ErrorResponse'; error: ServerError }
  | { kind: 'NoticeResponse'; notice: ServerError }
  | { kind: 'ParameterStatus'; name: string; value: string }
  | { kind: 'NotificationResponse'; pid: number; channel: string; payload: string }
  | { kind: 'CopyInResponse' | 'CopyOutResponse' | 'CopyBothResponse'; columns: number }
  | { kind: 'CopyData'; data: Buffer }
  | { kind: 'ReadyForQuery'; status: string }
  | { kind: 'Other'; type: string };

/** Parses ErrorResponse/NoticeResponse fields (already validated by the frame reader). */
export function errorFields(payload: Buffer): ServerError {
  const f: Record<string, string> = {};
  let p = 0;
  while (p < payload.length && payload[p] !== 0) {
    const t = String.fromCharCode(payload[p]!);
    const end = payload.indexOf(0, p + 1);
    f[t] = payload.toString('utf8', p + 1, end);
    p = end + 1;
  }
  return { severity: f.V ?? f.S ?? '', code: f.C ?? '', message: f.M ?? '' };
}

/** A DataRow's values as text; SQL NULL is null. */
export function dataRowValues(p: Buffer): Array<string | null> {
  const n = p.readInt16BE(0);
  const out: Array<string | null> = [];
  let at = 2;
  for (let i = 0; i < n; i++) {
    const len = p.readInt32BE(at);
    at += 4;
    out.push(len < 0 ? null : p.toString('utf8', at, at + len));
    if (len > 0) at += len;
  }
  return out;
}

function rowColumns(p: Buffer): string[] {
  const n = p.readInt16BE(0);
  const out: string[] = [];
  let at = 2;
  for (let i = 0; i < n; i++) {
    const end = p.indexOf(0, at);
    out.push(p.toString('utf8', at, end));
    at = end + 1 + 18;
  }
  return out;
}

function cstrings(p: Buffer, from = 0): string[] {
  return p.toString('utf8', from).split('\0').slice(0, -1);
}

const BARE: Readonly<Record<string, BackendItem['kind']>> = {
  '1': 'ParseComplete',
  '2': 'BindComplete',
  '3': 'CloseComplete',
  n: 'NoData',
  s: 'PortalSuspended',
  I: 'EmptyQueryResponse',
  c: 'CopyDone',
};

const COPY: Readonly<Record<string, 'CopyInResponse' | 'CopyOutResponse' | 'CopyBothResponse'>> = {
  G: 'CopyInResponse',
  H: 'CopyOutResponse',
  W: 'CopyBothResponse',
};

/** Decodes one validated backend frame. */
export function decodeBackend(frame: Frame): BackendItem {
  const p = frame.payload;
  const bare = BARE[frame.type];
  if (bare) return { kind: bare } as BackendItem;
  const copy = COPY[frame.type];
  if (copy) return { kind: copy, columns: p.readInt16BE(1) };
  switch (frame.type) {
    case 't':
      return {
        kind: 'ParameterDescription',
        types: Array.from({ length: p.readInt16BE(0) }, (_, i) => p.readInt32BE(2 + 4 * i)),
      };
    case 'T':
      return { kind: 'RowDescription', columns: rowColumns(p) };
    case 'D':
      return { kind: 'DataRow', values: dataRowValues(p) };
    case 'C':
      return { kind: 'CommandComplete', tag: cstrings(p)[0] ?? '' };
    case 'E':
      return { kind: 'ErrorResponse', error: errorFields(p) };
    case 'N':
      return { kind: 'NoticeResponse', notice: errorFields(p) };
    case 'S': {
      const [name = '', value = ''] = cstrings(p);
      return { kind: 'ParameterStatus', name, value };
    }
    case 'A': {
      const [channel = '', payload = ''] = cstrings(p, 4);
      return { kind: 'NotificationResponse', pid: p.readInt32BE(0), channel, payload };
    }
    case 'd':
      return { kind: 'CopyData', data: Buffer.from(p) };
    case 'Z':
      return { kind: 'ReadyForQuery', status: String.fromCharCode(p[0]!) };
    default:
      return { kind: 'Other', type: frame.type };
  }
}
