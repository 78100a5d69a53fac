/**
 * What is drawn at a terminal fits its width: table columns cut at a word
 * with "…" (the widest free-text column first, as gh does), and a status line
 * rewritten in place (a countdown) cut to one line.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderTable, truncateWords } from '../../src/ui/table.js';
import { streamNotices } from '../../src/ui/notices.js';

describe('truncateWords', () => {
  it('cuts at a word boundary with an ellipsis, never inside a word that has a space before it', () => {
    expect(truncateWords('@vidpub-demo (linkedin) published, @vidpubdemo (youtube) failed', 30)).toBe('@vidpub-demo (linkedin)…');
    expect(truncateWords('short', 30)).toBe('short');
    // a single word longer than the room: cut, with the ellipsis saying so
    expect(truncateWords('https://example.com/a/very/long/path', 12)).toBe('https://exa…');
  });
});

describe('renderTable at a width', () => {
  const rows = [{ id: 'post_0123456789abcdef', status: 'completed', caption: 'A caption long enough to need cutting at sixty columns wide' }];
  const columns = [
    { header: 'Id', value: (r: (typeof rows)[0]) => r.id },
    { header: 'Status', value: (r: (typeof rows)[0]) => r.status },
    { header: 'Caption', value: (r: (typeof rows)[0]) => r.caption, shrink: true },
  ];

  it('shrinks the free-text column so every line fits, the other columns whole', () => {
    const lines = renderTable(rows, columns, { tty: true, width: 60 });
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(lines[1]).toBe('post_0123456789abcdef  completed  A caption long enough to…');
  });

  it('where even that does not fit, each row is stacked as "Header: value" lines, every column kept', () => {
    const two = [...columns.slice(0, 2), { header: 'Where', value: () => 'somewhere far away', shrink: true }, columns[2]!];
    const lines = renderTable(rows, two, { tty: true, width: 40 });
    expect(lines).toEqual([
      'Id:      post_0123456789abcdef',
      'Status:  completed',
      'Where:   somewhere far away',
      'Caption: A caption long enough to need',
      '         cutting at sixty columns wide',
    ]);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(40);
  });

  it('never cuts a handle, an id or a URL inside: a cell is cut at a space only', () => {
    const dests = [{ id: 'post_0123456789abcdef', where: '@vidpubdemo (youtube) published, @vidpub.demo (tiktok) failed' }];
    const cols = [
      { header: 'Id', value: (r: (typeof dests)[0]) => r.id },
      { header: 'Destinations', value: (r: (typeof dests)[0]) => r.where, shrink: true },
    ];
    const lines = renderTable(dests, cols, { tty: true, width: 60 });
    expect(lines[1]).toBe('post_0123456789abcdef  @vidpubdemo (youtube) published…');
    // Room for less than the first handle: stacked, not "@vidpu…".
    const narrow = renderTable(dests, cols, { tty: true, width: 30 });
    expect(narrow.join('\n')).not.toContain('…');
    expect(narrow[0]).toBe('Id:           post_0123456789abcdef');
  });

  it('without a width (or wide enough), nothing is cut; a pipe is never cut', () => {
    expect(renderTable(rows, columns, { tty: true })[1]).toContain('at sixty columns wide');
    expect(renderTable(rows, columns, { tty: true, width: 200 })[1]).toContain('at sixty columns wide');
    expect(renderTable(rows, columns, { tty: false, width: 40 })[0]).toContain('at sixty columns wide');
  });
});

describe('streamNotices status line', () => {
  it('is cut to the terminal width so that rewriting it leaves no wrapped copy', () => {
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (c: Buffer) => (written += c.toString()));
    const sink = streamNotices(stream, true, 60);
    const long = 'Allowance used up, waiting for the reset: 5h 3m 20s left (daily posts, at tomorrow 01:00 CET; --wait-for-quota)…';
    sink.status!(long);
    const shown = written.replace('\r\u001b[2K', '');
    expect(shown.length).toBeLessThanOrEqual(59);
    expect(shown).toBe('Allowance used up, waiting for the reset: 5h 3m 20s left…');
  });
});
