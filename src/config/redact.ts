// Text safe to log or show: passwords in URLs and secret query values replaced.

/**
 * Text safe to log or show: in every `scheme://user:password@host`, the password is replaced (`user:***@`); a
 * userinfo without `:` is replaced whole. The userinfo runs to the last `@` before the next URL, so a password
 * with an unencoded `/`, `@`, `#` or newline is hidden too. `password=`/`token=`/`secret=` query values as well.
 */
export function redactUrl(text: string): string {
  const schemes = [...text.matchAll(/[A-Za-z][A-Za-z0-9+.-]*:\/\//g)];
  if (schemes.length === 0) return redactQuery(text);
  let out = text.slice(0, schemes[0]?.index);
  schemes.forEach((scheme, i) => {
    const rest = text.slice(scheme.index + scheme[0].length, schemes[i + 1]?.index ?? text.length);
    const at = rest.lastIndexOf('@');
    const colon = at < 0 ? -1 : rest.slice(0, at).indexOf(':');
    out += scheme[0] + (at < 0 ? rest : `${colon < 0 ? '***' : `${rest.slice(0, colon)}:***`}${rest.slice(at)}`);
  });
  return redactQuery(out);
}

function redactQuery(text: string): string {
  return text.replace(/([?&](?:password|pass|pwd|token|secret|auth)=)[^&\s]*/gi, '$1***');
}
