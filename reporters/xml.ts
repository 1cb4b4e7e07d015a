/**
 * Just enough XML writing for the JUnit report. Text comes from databases and poolers (error
 * messages, SQL, notices), so it may hold anything: markup characters are escaped, and the
 * characters XML 1.0 forbids outright (most C0 controls, lone surrogates, U+FFFE/U+FFFF) are
 * replaced, because a single one makes CI systems reject the whole file.
 */

/** Characters not allowed anywhere in an XML 1.0 document. */
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for element content or a double-quoted attribute value. */
export function escapeXml(text: string): string {
  return text
    .replace(FORBIDDEN, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * Escapes an attribute value. Line breaks and tabs are written as character references:
 * parsers normalise literal ones in attributes to spaces, which would flatten multi-line evidence.
 */
export function escapeAttribute(text: string): string {
  return escapeXml(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** `name="value"` pairs for an opening tag; null and undefined values are left out. */
export function attributes(attrs: Record<string, string | number | null | undefined>): string {
  return Object.entries(attrs)
    .filter((entry): entry is [string, string | number] => entry[1] !== null && entry[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`)
    .join('');
}
