import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportOptions, linkOptions } from './linkOptions.ts';

describe('link options of chainq serve', () => {
  it('defaults to one hour in <data>/links, taking the URL base from the request', () => {
    expect(linkOptions({ data: '/srv/chainq' }, {})).toEqual({ dir: path.join('/srv/chainq', 'links'), ttlSeconds: 3600 });
  });

  it('reads the environment, with flags taking precedence', () => {
    const env = { CHAINQ_LINK_TTL: '600', CHAINQ_PUBLIC_URL: 'https://a.example', CHAINQ_LINK_S3_BUCKET: 'b', CHAINQ_LINK_S3_ENDPOINT: 'http://minio:9000', CHAINQ_LINK_S3_FORCE_PATH_STYLE: 'true' };
    expect(linkOptions({ data: '/d' }, env)).toMatchObject({ ttlSeconds: 600, publicUrl: 'https://a.example', s3: { bucket: 'b', endpoint: 'http://minio:9000', forcePathStyle: true } });
    expect(linkOptions({ data: '/d', linkTtl: 60, publicUrl: 'https://b.example' }, env)).toMatchObject({ ttlSeconds: 60, publicUrl: 'https://b.example' });
    expect(() => linkOptions({ data: '/d' }, { CHAINQ_LINK_TTL: 'soon' })).toThrow(/CHAINQ_LINK_TTL/);
  });
});

describe('export options of chainq serve', () => {
  const flags = { data: '/srv/chainq', exportJobs: 1, exportTtl: 60 };
  it('exports give way to interactive requests unless --no-export-yield is given', () => {
    expect(exportOptions({ ...flags, exportYield: true }, {}).yieldToRequests).toBeUndefined();
    expect(exportOptions(flags, {}).yieldToRequests).toBeUndefined();
    expect(exportOptions({ ...flags, exportYield: false }, {}).yieldToRequests).toBe(false);
  });
});
