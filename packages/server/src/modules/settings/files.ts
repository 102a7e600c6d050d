import type { ThemeFileType } from '@lm/contract';

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) => signature.every((byte, index) => bytes[offset + index] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/**
 * The image type of uploaded bytes, judged by their content rather than by what the browser
 * claims; null for anything else. SVG is recognised as XML text whose root element is <svg>.
 */
export function sniffImageType(bytes: Uint8Array): ThemeFileType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length > 6) return 'image/x-icon';
  return isSvg(bytes) ? 'image/svg+xml' : null;
}

function isSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096));
  } catch {
    return false;
  }
  // Skip a BOM, the XML declaration, comments and a doctype before the root element.
  const head = text.replace(/^\uFEFF/, '').replace(/^\s*(<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>|\s+)*/i, '');
  return /^<svg[\s>]/i.test(head);
}

/** The public path of a theme file: /theme/files/logo, /theme/files/favicon. */
export function themeFileName(key: string): string {
  return key.replace(/^theme\./, '');
}
