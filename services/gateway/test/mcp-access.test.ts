import { describe, expect, it } from 'vitest';
import { GatewayConfigSchema } from '../src/config.js';
import {
  DEFAULT_ALLOWED_ORIGINS,
  type OriginPattern,
  originAllowed,
  parseOriginPattern,
} from '../src/domain/mcp/allowed-origins.js';
import { toolsForKey } from '../src/domain/mcp/tools-for-key.js';

// Who may reach /mcp from a browser page, and which tools a key is offered: pure rules, checked here;
// tests/e2e/clients/remote-mcp.test.ts sends the requests.

const defaults = DEFAULT_ALLOWED_ORIGINS.split(',').map(
  (entry) => parseOriginPattern(entry) as OriginPattern,
);
const own = 'https://memory.example.com';

describe('originAllowed', () => {
  it.each([
    ['https://memory.example.com', true],
    ['http://localhost:6274', true],
    ['http://127.0.0.1:3000', true],
    ['http://[::1]:8080', true],
    ['http://localhost', true],
    ['https://localhost:6274', false], // another scheme is another origin
    ['https://evil.example', false],
    ['http://localhost.evil.example', false],
    ['null', false],
    ['https://memory.example.com.evil.example', false],
  ])('when Origin is %s, then allowed is %s', (origin, allowed) => {
    expect(originAllowed(origin, defaults, own)).toBe(allowed);
  });

  it('when an origin is listed with its port, then only that port is allowed', () => {
    const listed = [parseOriginPattern('https://app.example.com:8443') as OriginPattern];

    expect(originAllowed('https://app.example.com:8443', listed, own)).toBe(true);
    expect(originAllowed('https://app.example.com', listed, own)).toBe(false);
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  const base = { GATEWAY_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/tm_gateway' };

  it('when unset, then the loopback names on any port', () => {
    expect(GatewayConfigSchema.parse(base).MCP_ALLOWED_ORIGINS).toEqual(defaults);
  });

  it('when an entry is not an origin, then the configuration is refused naming it', () => {
    const parsed = GatewayConfigSchema.safeParse({
      ...base,
      MCP_ALLOWED_ORIGINS: 'https://ok.example, https://bad.example/path, ftp://x.example',
    });

    expect(parsed.success).toBe(false);
    const messages = parsed.error?.issues.map((issue) => issue.message) ?? [];
    expect(messages).toEqual([
      expect.stringContaining('"https://bad.example/path" is not an origin'),
      expect.stringContaining('"ftp://x.example" is not an origin'),
    ]);
  });
});

describe('GATEWAY_PUBLIC_URL', () => {
  const base = { GATEWAY_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/tm_gateway' };

  it('when an origin is given, then it is kept without a trailing slash; unset, there is none', () => {
    const parse = (value?: string) =>
      GatewayConfigSchema.parse({ ...base, GATEWAY_PUBLIC_URL: value }).GATEWAY_PUBLIC_URL;

    expect(parse('https://memory.example.com/')).toBe('https://memory.example.com');
    expect(parse('http://10.0.0.5:8080')).toBe('http://10.0.0.5:8080');
    expect(parse(undefined)).toBeUndefined();
  });

  it.each([
    'https://memory.example.com/api',
    'ftp://memory.example.com',
    'https://user:pw@memory.example.com',
    'memory.example.com',
  ])('when it is %s, then the configuration is refused', (value) => {
    const parsed = GatewayConfigSchema.safeParse({ ...base, GATEWAY_PUBLIC_URL: value });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('GATEWAY_PUBLIC_URL must be an origin');
  });
});

describe('toolsForKey', () => {
  it('when a key holds some permissions, then it is offered the tools whose API calls those permissions allow', () => {
    expect(toolsForKey(['memory:write', 'memory:recall', 'memory:delete', 'telemetry:read'])).toEqual([
      'remember',
      'use_template',
      'recall',
      'list_templates',
      'forget_memory',
      'forget_namespace',
      'status',
    ]);
    expect(toolsForKey(['memory:recall'])).toEqual(['recall', 'list_templates']);
    expect(toolsForKey(['export:read'])).toEqual([]);
  });
});
