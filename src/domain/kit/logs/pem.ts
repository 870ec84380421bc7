// Private keys in PEM form (docs/commands.md#flink-logs): `-----BEGIN … PRIVATE KEY-----` up to its `-----END …-----`,
// on one line (a key quoted in JSON with `\n`) or across lines, as a key printed into a log spans several. Found with
// indexOf and one bounded expression, so linear in the line.

const BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/gu;
const END = '-----END ';
const DASHES = '-----';

/** A line with its key material masked, and whether a block is still open at its end (the next lines belong to it). */
export function maskPem(line: string, open: boolean, mask: string): { text: string; open: boolean } {
  let out = '';
  let at = 0;
  let inside = open;
  for (;;) {
    if (inside) {
      const end = line.indexOf(END, at);
      if (end < 0) return { text: `${out}${mask}`, open: true };
      const close = line.indexOf(DASHES, end + END.length);
      const after = close < 0 ? line.length : close + DASHES.length;
      out += `${mask}${line.slice(end, after)}`;
      at = after;
      inside = false;
      continue;
    }
    BEGIN.lastIndex = at;
    const begin = BEGIN.exec(line);
    if (begin === null) return { text: out + line.slice(at), open: false };
    const after = begin.index + begin[0].length;
    out += line.slice(at, after);
    at = after;
    inside = true;
  }
}
