import { describe, expect, it } from 'vitest';
import { blockedKind } from '../../src/tools/web/address-rules.ts';

describe('web_fetch address rules', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (inside an IPv6 address)'],
    ['::ffff:7f00:1', 'loopback (inside an IPv6 address)'],
    ['::ffff:a9fe:a9fe', 'link-local (inside an IPv6 address)'],
    ['::ffff:0:127.0.0.1', 'loopback (inside an IPv6 address)'],
    ['::ffff:0:7f00:1', 'loopback (inside an IPv6 address)'],
    ['0:0:0:0:ffff:0:a9fe:a9fe', 'link-local (inside an IPv6 address)'],
    ['::ffff:0:10.0.0.1', 'private (inside an IPv6 address)'],
    ['::ffff:0:0:0', 'unspecified (inside an IPv6 address)'],
    ['::127.0.0.1', 'loopback (inside an IPv6 address)'],
    ['64:ff9b::10.0.0.1', 'private (inside an IPv6 address)'],
    ['64:ff9b::a00:1', 'private (inside an IPv6 address)'],
    ['2002:c0a8:0101::1', 'private (inside an IPv6 address)'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(blockedKind(address)).toBe(kind);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::6810:85e5',
    '::ffff:8.8.8.8',
    '::ffff:0:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(blockedKind(address)).toBeUndefined();
  });

  it('the URL parser turns decimal, octal and hex IPv4 spellings into the dotted address checked', () => {
    for (const spelling of [
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://127.1/',
    ])
      expect(new URL(spelling).hostname).toBe('127.0.0.1');
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});
