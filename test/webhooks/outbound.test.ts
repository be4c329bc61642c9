import { describe, expect, it } from 'vitest';
import { checkReceiverUrl, isPublicAddress, retrySchedule } from '../../src/webhooks/index.js';

describe('outbound safety', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::10.0.0.1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '2001:db8::1',
    '[::1]',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('treats anything that is not an IP address as not public', () => {
    for (const text of ['example.com', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1::2::3', ':::', '']) {
      expect(isPublicAddress(text), text).toBe(false);
    }
  });

  it('accepts https receiver URLs only, unless http is allowed', () => {
    expect(checkReceiverUrl('https://hooks.example.com/in', {})).toBeNull();
    expect(checkReceiverUrl('http://hooks.example.com/in', {})).toBe('must use https');
    expect(checkReceiverUrl('http://hooks.example.com/in', { allowHttp: true })).toBeNull();
    expect(checkReceiverUrl('https://user:pw@hooks.example.com/', {})).toBe('must not contain credentials');
    expect(checkReceiverUrl('not a url', {})).toBe('must be an absolute URL');
    expect(checkReceiverUrl('https://localhost:8443/', {})).toBe('must not point to this machine');
    // The same host however it is spelled: a trailing dot (the DNS root), upper case, a subdomain.
    for (const url of ['https://localhost.:8443/hook', 'https://LOCALHOST./', 'https://api.localhost../x'])
      expect(checkReceiverUrl(url, {})).toBe('must not point to this machine');
    expect(checkReceiverUrl('https://127.0.0.1/', { allowPrivateAddresses: true })).toBeNull();
    for (const url of ['https://hooks.example.com/in#x', 'https://hooks.example.com/in#'])
      expect(checkReceiverUrl(url, {})).toBe('must not contain a fragment');
  });
});

describe('retry schedule', () => {
  it('defaults to immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    const schedule = retrySchedule();
    expect(schedule.attempts).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => schedule.delayAfter(n))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('takes 3 to 10 attempts, repeating the last delay beyond eight', () => {
    expect(() => retrySchedule({ attempts: 2 })).toThrow(RangeError);
    expect(() => retrySchedule({ attempts: 11 })).toThrow(RangeError);
    expect(retrySchedule({ attempts: 10 }).delayAfter(9)).toBe(36_000_000);
  });
});
