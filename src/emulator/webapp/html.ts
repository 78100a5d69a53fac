/**
 * The web app's HTML: escaping, the page frame (inline style, no external
 * resource of any kind, so it works offline), and the little script that
 * refreshes a page while its post is in progress. Every text the pages show
 * goes through `esc`; markup is built only from literals and escaped text.
 * The style and the script are the only inline ones, and the same on every
 * page: the Content-Security-Policy allows them by their SHA-256 (PAGE_CSP),
 * never 'unsafe-inline', so markup that escaping missed could run nothing.
 */
import { createHash } from 'node:crypto';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a quoted attribute value. */
export const esc = (s: string | number | boolean | null | undefined): string => String(s ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** HTML already escaped (built by these helpers), as opposed to text. */
export interface Html {
  readonly html: string;
}

export const raw = (html: string): Html => ({ html });

/** A template tag: interpolated strings and numbers are escaped, Html values and arrays of them are not. */
export function h(strings: TemplateStringsArray, ...values: (string | number | boolean | null | undefined | Html | Html[])[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    if (Array.isArray(v)) out += v.map((x) => x.html).join('');
    else if (v !== null && typeof v === 'object') out += v.html;
    else out += esc(v);
    out += strings[i + 1]!;
  });
  return { html: out };
}

export const join = (parts: Html[]): Html => raw(parts.map((p) => p.html).join(''));

const STYLE = `
:root{color-scheme:light;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0b57d0;--bad:#b3261e;--warn:#7a4d00;--good:#146c2e}
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
header.top{background:var(--soft);border-bottom:1px solid var(--line);padding:.5rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header.top p{margin:0;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.05rem;margin:1rem 0 .25rem}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible,video:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1.5rem}
@media (max-width:800px){.grid{grid-template-columns:minmax(0,1fr)}}
video{width:100%;max-height:24rem;background:#000;border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
.scroll{overflow-x:auto}
code,main a{overflow-wrap:anywhere}
@media (max-width:600px){
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack caption{display:block;text-align:left}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
table.stack tr{border-bottom:1px solid var(--line);padding:.35rem 0}
table.stack td{border:0;padding:.1rem .5rem;overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
}
.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;border:1px solid currentColor;font-size:.85rem;font-weight:600}
.s-published,.s-completed,.s-ready,.s-active{color:var(--good)}
.s-failed,.s-error,.s-disconnected,.s-expired{color:var(--bad)}
.s-cancelled,.s-warning{color:var(--warn)}
.s-draft,.s-pending,.s-scheduled,.s-publishing,.s-processing,.s-uploading{color:var(--muted)}
.note{color:var(--muted);font-size:.9rem}
.box{border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
.alert{border-color:var(--bad);color:var(--bad);font-weight:600}
.ok{border-color:var(--good);color:var(--good);font-weight:600}
.caption{white-space:pre-wrap;background:var(--soft);padding:.5rem .75rem;border-radius:6px;overflow-wrap:anywhere}
form.inline{display:inline}
label{display:block;font-weight:600;margin:.5rem 0 .15rem}
label.check{display:flex;gap:.4rem;align-items:center;font-weight:400}
input[type=text],select,textarea{font:inherit;width:100%;max-width:32rem;padding:.3rem .4rem;border:1px solid var(--muted);border-radius:4px;background:#fff;color:var(--fg)}
textarea{min-height:6rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
button{font:inherit;padding:.35rem .9rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;margin:.25rem .25rem .25rem 0}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
details pre{background:var(--soft);padding:.75rem;overflow:auto;font-size:.85rem}
ul.issues{padding-left:1.2rem}
`;

/**
 * While `poll` is set, the page fetches itself every POLL_MS and swaps in the new <main> when
 * its data-rev changed (the post or its video moved on), keeping the focus where it can.
 */
export const POLL_MS = 1000;

const SCRIPT = `
(function(){
  var main=document.querySelector('main');
  if(!main||main.getAttribute('data-poll')!=='1')return;
  function tick(){
    fetch(location.pathname,{credentials:'same-origin',headers:{'Accept':'text/html'}}).then(function(r){return r.ok?r.text():null}).then(function(text){
      if(text===null)return;
      var next=new DOMParser().parseFromString(text,'text/html').querySelector('main');
      if(!next)return;
      var cur=document.querySelector('main');
      if(next.getAttribute('data-rev')!==cur.getAttribute('data-rev')){
        var focused=document.activeElement&&document.activeElement.id;
        cur.replaceWith(next);
        if(focused){var el=document.getElementById(focused);if(el)el.focus();}
      }
      if(next.getAttribute('data-poll')==='1')setTimeout(tick,${POLL_MS});
    }).catch(function(){setTimeout(tick,${POLL_MS}*3)});
  }
  setTimeout(tick,${POLL_MS});
})();
`;

export interface PageOptions {
  /** Refresh while the thing shown is in progress. */
  poll?: boolean;
  /** Changes when what the page shows changes (the script compares it). */
  rev?: string;
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The pages' Content-Security-Policy: nothing from elsewhere; of inline code, only the frame's style and script (by hash). */
export const PAGE_CSP =
  `default-src 'none'; media-src 'self'; img-src 'self' data:; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; ` +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A whole page: the frame, the navigation, then `body` inside <main>. */
export function page(title: string, body: Html, opts: PageOptions = {}): string {
  return '<!doctype html>'
    + h`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`.html
    + h`<title>${title} · vidpub emulator</title>`.html
    + `<style>${STYLE}</style></head><body>`
    + h`<header class="top"><p>Video Publishing Service emulator</p><nav aria-label="Web app"><a href="/_emulator/app">Workspaces</a></nav></header>`.html
    + h`<main id="main" data-poll="${opts.poll ? '1' : '0'}" data-rev="${opts.rev ?? ''}"><h1>${title}</h1>${body}</main>`.html
    + `<script>${SCRIPT}</script></body></html>`;
}

/** A wide table's box, scrolled sideways on a narrow screen: focusable (so the keyboard can scroll it) and named. */
export const scrollBox = (label: string, inner: Html): Html => h`<div class="scroll" tabindex="0" role="region" aria-label="${label}">${inner}</div>`;

/**
 * A table of records that stacks on a narrow screen (under 600 px): each row a block, each cell on a line of its own
 * after its column's name (`data-label`), so nothing is wider than the screen. `cells` are the rows' cells, in the
 * order of `columns`.
 */
export function stackedTable(caption: string, columns: string[], rows: Html[][]): Html {
  const head = columns.map((c) => h`<th scope="col">${c}</th>`);
  const body = rows.map((cells) => h`<tr>${cells.map((cell, i) => h`<td data-label="${columns[i]}">${cell}</td>`)}</tr>`);
  return h`<table class="stack"><caption class="note">${caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** A status word as a coloured badge (the word itself says it; the colour only repeats it). */
export const badge = (status: string): Html => h`<span class="badge s-${status}">${status}</span>`;
