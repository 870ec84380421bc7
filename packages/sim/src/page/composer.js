// The composer: sends what was typed, and shows the command's usage hint from the parser's own table, as Slack's
// slash command menu does.
import { el } from './dom.js';

/** Hint lines for `/flink <verb> …`: every verb starting with what was typed, or the typed verb's full usage. */
function showHints(input, box, data) {
  const text = input.value;
  box.replaceChildren();
  if (!data || !text.startsWith('/')) return;
  const [word, verb = '', ...rest] = text.split(/\s+/);
  if (!data.command.startsWith(word)) return;
  const exact = rest.length > 0 || text.endsWith(' ') ? data.usage.filter((u) => u.verb === verb) : [];
  const candidates = exact.length > 0 ? exact : data.usage.filter((u) => u.verb.startsWith(verb));
  for (const u of candidates.slice(0, 8)) {
    const line = el('button', 'hint-line');
    line.type = 'button';
    line.append(el('code', '', u.usage), el('span', 'hint-summary', u.summary));
    line.addEventListener('click', () => {
      input.value = `${data.command} ${u.verb} `;
      input.focus();
      showHints(input, box, data);
    });
    box.append(line);
  }
}

/** opts: form, input, hints (the hint box), usage() (the page state), threadOf() (ts or undefined), send(text, threadTs). */
export function wireComposer(opts) {
  const { form, input, hints } = opts;
  input.addEventListener('input', () => showHints(input, hints, opts.usage()));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Tab' && input.value.startsWith('/') && hints.firstChild) {
      e.preventDefault();
      hints.firstChild.click();
    }
    if (e.key === 'Escape') hints.replaceChildren();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.value = '';
    hints.replaceChildren();
    void opts.send(text, opts.threadOf());
  });
}
