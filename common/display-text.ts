/**
 * Fitting statements into table cells. Display only: collapsing whitespace here never feeds
 * classification, which always works on the text as written.
 */

/** `text` on one line (runs of whitespace become one space), cut to `width` with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  return `${flat.slice(0, Math.max(0, width - 3))}...`;
}
