/**
 * An answer's JSON, parsed only when its nesting is sane. The contract's records nest a few
 * levels (a post, its destinations, their options); JSON.parse itself takes any depth, but
 * what walks the value afterwards (JSON.stringify for --json, a redaction, a printer) recurses,
 * and two million levels overflow the stack ("Maximum call stack size exceeded"). Deeper than
 * MAX_JSON_DEPTH is not the service's word: read as an answer that is not JSON it can use.
 */

/** The deepest nesting of objects and arrays an answer may have. */
export const MAX_JSON_DEPTH = 64;

/** Thrown for JSON nested deeper than MAX_JSON_DEPTH (a SyntaxError, as JSON.parse's own refusals are). */
export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** Whether `text` opens more than `max` objects or arrays inside one another (strings skipped; one pass, no parse). */
export function nestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse, refusing (JsonTooDeepError) what nests deeper than MAX_JSON_DEPTH. */
export function parseAnswerJson(text: string): unknown {
  if (nestsDeeper(text)) throw new JsonTooDeepError();
  return JSON.parse(text) as unknown;
}
