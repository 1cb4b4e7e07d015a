/**
 * HTML helpers for the HTML report. Everything in a report that came from outside (SQL, server
 * and pooler messages, notices, payloads, even check ids) is hostile input: it is escaped with
 * {@link esc} before it lands in an element or a quoted attribute, so no report text can open
 * a tag, end an attribute or start a script. Control characters are made visible, because a
 * NUL or an escape sequence has no business in the page either.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe as element content or as a double- or single-quoted attribute value. */
export function esc(text: string | number | boolean | null | undefined): string {
  return String(text ?? '')
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!)
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    );
}

/** `text` on one line, cut to `max` characters with an ellipsis (before escaping). */
export function clip(text: string, max: number): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A class-name-safe token from a label (`rolled-back` stays, anything odd becomes `-`). */
export function token(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9-]/g, '-');
}
