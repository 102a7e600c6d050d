/** Only paths of this site are followed after login, never another origin. */
export function safeReturnUrl(value: string | null): string {
  // A path of this app only: not `//host`, nor a backslash or a control character a browser may read as one.
  return value && value.startsWith('/') && !value.startsWith('//') && !/[\\\u0000-\u001f]/.test(value) ? value : '/';
}
