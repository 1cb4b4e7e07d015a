/**
 * The PostgreSQL v3 wire protocol, validated: a frame reader for either direction (what the
 * pg guard and a recording proxy build on), the violation it reports, and the guard that puts
 * it in front of pg's parser; the frontend writer (frontend.ts) and backend decoder (backend.ts)
 * the wire-level session speaks with. See frame-reader.ts for the reader's contract.
 */
export { DEFAULT_MAX_MESSAGE_BYTES, FrameReader, type Frame, type FrameReaderOptions } from './frame-reader.js';
export { CANCEL_REQUEST, GSSENC_REQUEST, MAX_STARTUP_LENGTH, SSL_REQUEST, type UntypedKind } from './messages.js';
export { assertGuarded, guardClient, violationOf } from './pg-guard.js';
export {
  describeViolation,
  EVIDENCE_BYTES,
  ProtocolViolationError,
  type Direction,
  type ProtocolViolation,
} from './violation.js';
export { decodeBackend, errorFields, type BackendItem, type ServerError } from './backend.js';
export { type FrontendMessage } from './frontend.js';
