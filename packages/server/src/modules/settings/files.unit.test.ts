import { describe, expect, it } from 'vitest';
import { sniffImageType } from './files.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

describe('sniffImageType', () => {
  it('recognises PNG, JPEG, GIF, WebP and ICO by their signatures', () => {
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('image/png');
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffImageType(text('GIF89a....'))).toBe('image/gif');
    expect(sniffImageType(text('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(bytes(0, 0, 1, 0, 1, 0, 16, 16))).toBe('image/x-icon');
  });

  it('recognises SVG after a BOM, an XML declaration, comments and a doctype', () => {
    expect(sniffImageType(text('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml');
    expect(sniffImageType(text('\uFEFF<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<svg>'))).toBe('image/svg+xml');
  });

  it('refuses anything else', () => {
    for (const value of ['<html><svg></svg></html>', '%PDF-1.7', 'GIF8', 'plain text', '']) expect(sniffImageType(text(value)), value).toBeNull();
    expect(sniffImageType(bytes(0xc3, 0x28, 0x3c, 0x73, 0x76, 0x67))).toBeNull();
  });
});
