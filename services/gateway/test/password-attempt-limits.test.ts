import { describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from '../src/config.js';
import { addressBucketOf } from '../src/domain/identity/address-bucket.js';

describe('the address failed password attempts count against', () => {
  it('when the address is IPv4, or IPv4 mapped into IPv6, then it counts as that IPv4 address', () => {
    expect(addressBucketOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucketOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('when the address is IPv6, then every address of its /64 counts as one', () => {
    const a = addressBucketOf('2001:db8:1:2::1');
    const b = addressBucketOf('2001:0db8:0001:0002:ffff:ffff:ffff:fffe');
    const otherNetwork = addressBucketOf('2001:db8:1:3::1');

    expect(a).toBe('2001:db8:1:2::/64');
    expect(b).toBe(a);
    expect(otherNetwork).not.toBe(a);
  });
});

describe('GATEWAY_TRUST_PROXY', () => {
  const parse = (value?: string) =>
    GatewayConfigSchema.safeParse(value === undefined ? {} : { GATEWAY_TRUST_PROXY: value });

  it('when it is unset or empty, then no proxy is trusted', () => {
    expect(parse().data?.GATEWAY_TRUST_PROXY).toEqual([]);
    expect(parse('').data?.GATEWAY_TRUST_PROXY).toEqual([]);
  });

  it('when it lists addresses, subnets and named ranges, then each is kept', () => {
    expect(parse(' loopback, 10.0.0.0/8 ,192.0.2.1, fd00::/8,::1 ').data?.GATEWAY_TRUST_PROXY).toEqual([
      'loopback',
      '10.0.0.0/8',
      '192.0.2.1',
      'fd00::/8',
      '::1',
    ]);
  });

  it.each(['true', '1', '*', 'proxy.internal', '10.0.0.0/33', '10.0.0.0/8/1', '300.1.1.1'])(
    'when it is %j (anything but a list of proxies), then the configuration is refused',
    (value) => {
      const result = parse(value);

      expect(result.success).toBe(false);
      expect(result.error?.issues[0]).toMatchObject({ path: ['GATEWAY_TRUST_PROXY'] });
    },
  );
});
