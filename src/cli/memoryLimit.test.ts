import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { ENGINE_OVERSHOOT, MIN_MEMORY_LIMIT_BYTES, SERVER_BASE_BYTES, engineSize, memoryBudget, memoryLimitOption, parseMemorySize } from './memoryLimit.ts';

const MIB = 1024 * 1024;

describe('--memory-limit', () => {
  it('reads KB/MB/GB as powers of 1000 and KiB/MiB/GiB as powers of 1024, in any case, with or without a space', () => {
    expect(parseMemorySize('640MiB')).toBe(640 * MIB);
    expect(parseMemorySize('1gib')).toBe(1024 * MIB);
    expect(parseMemorySize('1.5GB')).toBe(1.5e9);
    expect(parseMemorySize('700 MB')).toBe(7e8);
    expect(parseMemorySize('512000000')).toBe(512e6);
  });

  it('refuses text that is not a size, naming what it got', () => {
    for (const bad of ['', 'lots', '12 parsecs', '-1GB', '1e9', 'GB']) expect(() => parseMemorySize(bad)).toThrow(InvalidArgumentError);
    expect(() => memoryLimitOption('12 parsecs')).toThrow(/got '12 parsecs'/);
  });

  it('refuses a bound below what the server holds by itself', () => {
    expect(() => memoryLimitOption('256MiB')).toThrow(/at least 320MiB/);
    expect(memoryLimitOption('320MiB')).toBe(MIN_MEMORY_LIMIT_BYTES);
  });

  it('gives the engine what the base and the stream buffers leave, divided by its overshoot, in whole MiB', () => {
    const b = memoryBudget(1024 * MIB, 10);
    const streams = b.streamBufferBytes * 3 * 10;
    expect(b.engineBytes % MIB).toBe(0);
    expect(b.engineBytes).toBe(Math.floor((1024 * MIB - SERVER_BASE_BYTES - streams) / ENGINE_OVERSHOOT / MIB) * MIB);
    // The parts add up to no more than the bound.
    expect(SERVER_BASE_BYTES + streams + b.engineBytes * ENGINE_OVERSHOOT).toBeLessThanOrEqual(1024 * MIB);
    expect(engineSize(b.engineBytes)).toBe(`${b.engineBytes / MIB}MiB`);
  });

  it('gives the engine more as the bound grows', () => {
    expect(memoryBudget(2048 * MIB, 10).engineBytes).toBeGreaterThan(memoryBudget(1024 * MIB, 10).engineBytes);
  });

  it('shrinks each stream buffer when many streams share a small bound, within 64 to 256 KiB', () => {
    expect(memoryBudget(640 * MIB, 10).streamBufferBytes).toBe(256 * 1024);
    const crowded = memoryBudget(320 * MIB, 40);
    expect(crowded.streamBufferBytes).toBe(Math.floor((320 * MIB) / 32 / (3 * 40)));
    expect(memoryBudget(320 * MIB, 1000).streamBufferBytes).toBe(64 * 1024);
  });
});
