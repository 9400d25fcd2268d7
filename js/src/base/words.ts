// Kernel messages for people drawing: the first useful sentence, the rest on demand.

/** Splits a refusal into what to show at once and the rest (null when there is no more).
 * Keras's "Error when deserializing class ... using config={...}" (hundreds of characters of
 * config) is dropped from the short form: its "Exception encountered:" sentence is the useful one. */
export function usefulMessage(message: string): { short: string; more: string | null } {
  const text = message.trim();
  const enc = text.indexOf("Exception encountered:");
  if (enc >= 0) {
    const head = text.slice(0, text.indexOf(":") >= 0 && text.indexOf(":") < enc ? text.indexOf(":") : 0).trim();
    const cause = firstSentence(text.slice(enc + "Exception encountered:".length).trim());
    return { short: head ? `${head}: ${cause}` : cause, more: text };
  }
  if (text.length <= 220) return { short: text, more: null };
  const short = firstSentence(text);
  return { short, more: short.length < text.length ? text : null };
}

function firstSentence(text: string): string {
  // a sentence ends at ". " followed by a capital letter or at a blank line; shapes like (None, 4) stay whole
  const m = /^([\s\S]*?[.!?])(?:\s+(?=[A-Z(])|\n\n)/.exec(text);
  const s = (m ? m[1] : text).trim();
  return s.length > 300 ? s.slice(0, 299) + "…" : s;
}
