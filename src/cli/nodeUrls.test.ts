/** How the node URL options read several nodes: repeated, comma-separated, or both. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { nodeUrls, oneOrMany } from './options.ts';

const parse = (...args: string[]) => {
  const cmd = new Command().exitOverride().option('--rpc <url>', 'nodes', nodeUrls);
  cmd.parse(args, { from: 'user' });
  return cmd.opts<{ rpc?: string[] }>().rpc;
};

describe('node URL options', () => {
  it('collects a repeated option and comma-separated lists, in order', () => {
    expect(parse('--rpc', 'http://a:8545')).toEqual(['http://a:8545']);
    expect(parse('--rpc', 'http://a:8545', '--rpc', 'https://b.example/rpc')).toEqual(['http://a:8545', 'https://b.example/rpc']);
    expect(parse('--rpc', 'http://a:8545, http://b:8545', '--rpc', 'http://c:8545')).toEqual(['http://a:8545', 'http://b:8545', 'http://c:8545']);
  });

  it('refuses what is not an http(s) URL, without echoing credentials', () => {
    expect(() => parse('--rpc', 'ws://a:8546')).toThrow(/http or https/);
    expect(() => parse('--rpc', 'user:secret@host')).toThrow(/http or https|not a URL/);
    expect(() => parse('--rpc', 'http://u:secret@')).toThrow(/not a URL: 'http:\/\/\*\*\*@'/);
  });

  it('keeps one URL a string in a job description, as before several nodes were possible', () => {
    expect(oneOrMany(['http://a'])).toBe('http://a');
    expect(oneOrMany(['http://a', 'http://b'])).toEqual(['http://a', 'http://b']);
  });
});
