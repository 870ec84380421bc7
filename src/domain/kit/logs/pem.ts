// Private keys in PEM form (docs/commands.md#flink-logs): `-----BEGIN … PRIVATE KEY-----` up to its `-----END …-----`,
// on one line (a key quoted in JSON with `\n`) or across lines, as a key printed into a log spans several. Found with
// indexOf and one bounded expression, so linear in the line.

const BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/u;
const END = '-----END ';
const DASHES = '-----';

/** A line with its key material masked, and whether a block is still open at its end (the next lines belong to it). */
export function maskPem(line: string, open: boolean, mask: string): { text: string; open: boolean } {
  let out = '';
  let rest = line;
  let inside = open;
  for (;;) {
    if (inside) {
      const end = rest.indexOf(END);
      if (end < 0) return { text: `${out}${mask}`, open: true };
      const close = rest.indexOf(DASHES, end + END.length);
      const after = close < 0 ? rest.length : close + DASHES.length;
      out += `${mask}${rest.slice(end, after)}`;
      rest = rest.slice(after);
      inside = false;
      continue;
    }
    const begin = BEGIN.exec(rest);
    if (begin === null) return { text: out + rest, open: false };
    out += rest.slice(0, begin.index + begin[0].length);
    rest = rest.slice(begin.index + begin[0].length);
    inside = true;
  }
}
