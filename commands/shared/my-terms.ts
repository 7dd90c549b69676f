/**
 * Whether a /search query reads the searcher's own board account: a `my:` term (my:faves, my:upvotes,
 * my:downvotes, my:uploads, my:watched, or any other value the board would read as one; docs/board-behaviour.md,
 * "Search syntax"). Such a query needs the member's own key (issue 22 §2), so the detection errs on the side of
 * finding one: the board must never get a `my:` term without its member's key.
 *
 * What is not a term's start the board reads as text, and so is skipped here: a closed `"quoted term"` (a
 * tag name that happens to hold `my:`) and a `\`-escaped character (`my\:faves`). A quote left open is
 * not skipped (the lexer's reading of it is not ours to guess). Every other place a `my` may start a term
 * counts: after a comma, a bracket, `-`, `!`, `NOT`, `AND`, `OR`, `||`, `&&`, or spaces, in any case, with
 * spaces before the colon.
 */

/** `my`, not inside a longer word, then (after optional spaces) a colon. */
const MY_TERM = /(?<![\p{L}\p{N}_])my\s*:/iu;

/** `query` with closed quoted terms and escaped characters replaced by a neutral letter. */
function withoutLiterals(query: string): string {
  let out = '';
  let i = 0;
  while (i < query.length) {
    const c = query[i];
    if (c === '\\') {
      out += 'x';
      i += 2;
      continue;
    }
    if (c === '"') {
      const end = closingQuote(query, i + 1);
      if (end !== undefined) {
        out += 'x';
        i = end + 1;
        continue;
      }
    }
    out += c;
    i += 1;
  }
  return out;
}

/** The index of the quote that closes a quoted term opened before `from`, honouring `\` escapes. */
function closingQuote(query: string, from: number): number | undefined {
  for (let i = from; i < query.length; i += 1) {
    if (query[i] === '\\') i += 1;
    else if (query[i] === '"') return i;
  }
  return undefined;
}

/** True when the board would read a `my:` term of `query` (see the header). */
export function hasMyTerm(query: string): boolean {
  return MY_TERM.test(withoutLiterals(query));
}
