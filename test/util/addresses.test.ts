/**
 * The one definition of loopback (src/contract/addresses.ts), asked two ways: a socket's peer
 * (isLoopbackPeer: what the emulator's test controls answer) and a URL's or listen host
 * (isLoopbackHost: the client's http:// rule, the emulator's listen warning). One table, run
 * against both, and against the emulator's decision (controlsAnswer) and the client's
 * (normalizeBaseUrl); the IPv6 reader against Node's own.
 */
import { isIPv6 } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ipv6Groups, isLoopbackHost, isLoopbackPeer } from '../../src/contract/addresses.js';
import { controlsAnswer } from '../../src/emulator/access.js';
import { normalizeBaseUrl } from '../../src/api/credentials.js';

/** [address, loopback as a peer, loopback as a host]. A peer is an IP address: names never are. */
const TABLE: [string, boolean, boolean][] = [
  ['127.0.0.1', true, true],
  ['127.8.9.10', true, true],
  ['127.255.255.255', true, true],
  ['::1', true, true],
  ['0:0:0:0:0:0:0:1', true, true],
  ['::ffff:127.0.0.1', true, true], // IPv4 loopback as a dual-stack socket reports it
  ['::ffff:7f00:1', true, true],
  ['::FFFF:127.1.2.3', true, true],
  ['0:0:0:0:0:ffff:7f00:0001', true, true],
  ['localhost', false, true],
  ['api.localhost', false, true],
  ['LOCALHOST.', false, true],
  // Forms that carry 127.0.0.1 and are other hosts' addresses.
  ['64:ff9b::7f00:1', false, false], // NAT64
  ['64:ff9b::127.0.0.1', false, false],
  ['::127.0.0.1', false, false], // IPv4-compatible (deprecated)
  ['::7f00:1', false, false],
  ['2002:7f00:1::', false, false], // 6to4
  ['2002:7f00:1::1', false, false],
  ['::ffff:0:127.0.0.1', false, false], // SIIT translated
  ['64:ff9b:1::7f00:1', false, false], // NAT64 local use
  ['::1:1', false, false],
  ['::', false, false],
  ['::ffff:128.0.0.1', false, false],
  ['::ffff:192.0.2.7', false, false],
  ['0.0.0.0', false, false],
  ['128.0.0.1', false, false],
  ['10.0.0.1', false, false],
  ['192.0.2.7', false, false],
  ['fd00::2', false, false],
  ['fe80::1', false, false],
  ['127.0.0.1.example.com', false, false],
  ['localhost.example.com', false, false],
  ['127.1', false, false], // not a dotted quad (a URL's parser writes it 127.0.0.1)
  ['0127.0.0.1', false, false],
  ['127.0.0.256', false, false],
  ['example.com', false, false],
];

describe('one definition of loopback, two questions', () => {
  it.each(TABLE)('%s: peer %s, host %s', (address, peer, host) => {
    expect(isLoopbackPeer(address)).toBe(peer);
    expect(isLoopbackHost(address)).toBe(host);
    // An IPv6 address as a URL's host is in brackets.
    if (address.includes(':')) expect(isLoopbackHost(`[${address}]`)).toBe(host);
    // The emulator's controls answer exactly the loopback peers.
    expect(controlsAnswer('/_emulator/clock', address, false)).toBe(peer);
  });

  it('an unknown peer (its connection gone) is not loopback', () => {
    expect(isLoopbackPeer(undefined)).toBe(false);
    expect(controlsAnswer('/_emulator', undefined, false)).toBe(false);
  });

  it("the client's http:// rule follows the same definition, through the URL parser's spelling", () => {
    for (const [address, , host] of TABLE) {
      const literal = address.includes(':') ? `[${address}]` : address;
      let url: URL | undefined;
      try {
        url = new URL(`http://${literal}:4010/v1`);
      } catch {
        continue; // not a host a URL can hold
      }
      const allowed = (() => {
        try {
          normalizeBaseUrl(`http://${literal}:4010/v1`, 'the test');
          return true;
        } catch {
          return false;
        }
      })();
      // The URL parser rewrites some hosts (127.1 -> 127.0.0.1); the rule is applied to what it wrote.
      expect([address, allowed]).toEqual([address, isLoopbackHost(url.hostname)]);
      if (url.hostname.replace(/^\[|\]$/g, '') === address.toLowerCase()) expect([address, allowed]).toEqual([address, host]);
    }
  });
});

describe('the IPv6 reader agrees with Node on what is an IPv6 address', () => {
  const samples = [
    '::', '::1', '1::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1::8', '1:2:3:4:5:6::8',
    '::ffff:127.0.0.1', '::127.0.0.1', '64:ff9b::192.0.2.1', '1:2:3:4:5:6:1.2.3.4', 'fe80::1', '2001:db8::ff00:42:8329',
    '1:2:3:4:5:6:7:8:9', '1::2::3', ':1::', '1:::2', '12345::', '::g', '1:2:3:4:5:6:7', '::1.2.3', '::1.2.3.256',
    '1.2.3.4', '::01.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', 'abcd:ef01:2345:6789:abcd:ef01:2345:6789', '', ':', ':::',
  ];
  it.each(samples)('%s', (text) => {
    expect(ipv6Groups(text) !== null).toBe(isIPv6(text));
  });

  it('reads the groups', () => {
    expect(ipv6Groups('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(ipv6Groups('2002:7f00:1::')).toEqual([0x2002, 0x7f00, 1, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('1::8')).toEqual([1, 0, 0, 0, 0, 0, 0, 8]);
  });
});
