import { API_RETRIES, type ErrorBody } from '@lm/contract';

let requestLocale = 'en';

/** The locale sent as accept-language with every call; i18n keeps it current. */
export function setRequestLocale(locale: string): void {
  requestLocale = locale;
}

/** A failed call: `status` is undefined when no answer arrived (network down). */
export class ApiError extends Error {
  readonly status: number | undefined;
  readonly body: ErrorBody | undefined;
  /** The answer's ETag: for 412 ERR_EDIT_CONFLICT, that of the current record (`body.current`). */
  readonly etag: string | undefined;

  constructor(status: number | undefined, body: ErrorBody | undefined, message: string, etag?: string) {
    super(message);
    this.status = status;
    this.body = body;
    this.etag = etag;
  }

  get code(): string | undefined {
    return this.body?.error;
  }
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Dates in responses arrive as ISO strings and are handed to the app as Date objects. */
export function parseJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' && ISO_DATE_TIME.test(value) ? new Date(value) : value));
}

/** The call that was refused (for a write, to keep it across the sign-in: kept-change.ts). */
export interface RefusedCall {
  path: string;
  options: RequestOptions;
}

type AuthFailureListener = (status: number, code: string | undefined, call?: RefusedCall) => void;
const authFailureListeners = new Set<AuthFailureListener>();

/** Called for every 401 or 403 answer; the app sends the user to /login with a returnUrl. */
export function onAuthFailure(listener: AuthFailureListener): () => void {
  authFailureListeners.add(listener);
  return () => void authFailureListeners.delete(listener);
}

function reportAuthFailure(status: number, code: string | undefined, call?: RefusedCall): void {
  if (status === 401 || status === 403) for (const listener of authFailureListeners) listener(status, code, call);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The ETag the change is made to (If-Match): a stale one is answered 412 ERR_EDIT_CONFLICT. */
  ifMatch?: string;
  /** Called with the answer's ETag (the record's version, for a later If-Match). */
  onEtag?: (etag: string | undefined) => void;
  query?: Record<string, string | number | boolean | undefined | null | readonly (string | number)[]>;
  body?: unknown;
  /** Calls whose 401/403 is an expected answer (login, session check) do not redirect. */
  quietAuthFailure?: boolean;
  signal?: AbortSignal;
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const search = params.toString();
  return `/api${path}${search ? `?${search}` : ''}`;
}

const retryable = (error: unknown) => error instanceof ApiError && (error.status === undefined || error.status === 502);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function once<T>(path: string, options: RequestOptions): Promise<T> {
  const isForm = options.body instanceof FormData;
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      credentials: 'include',
      signal: options.signal,
      headers: {
        accept: 'application/json',
        'accept-language': requestLocale,
        ...(options.body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}),
        ...(options.ifMatch ? { 'if-match': options.ifMatch } : {}),
      },
      body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(undefined, undefined, error instanceof Error ? error.message : 'Network error');
  }
  const text = await response.text();
  const data = text ? safeParse(text) : undefined;
  if (!response.ok) {
    const body = data && typeof data === 'object' && 'error' in data ? (data as ErrorBody) : undefined;
    if (!options.quietAuthFailure) reportAuthFailure(response.status, body?.error, { path, options });
    throw new ApiError(response.status, body, body?.message ?? response.statusText, response.headers.get('etag') ?? undefined);
  }
  options.onEtag?.(response.headers.get('etag') ?? undefined);
  return data as T;
}

function safeParse(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/** One API call: under /api, with cookies and the current locale, retried up to 5 times on no answer or 502. */
export async function api<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once<T>(path, options);
    } catch (error) {
      if (attempt >= API_RETRIES || !retryable(error) || options.signal?.aborted) throw error;
      await wait(Math.min(200 * 2 ** attempt, 3000));
    }
  }
}

/** Uploads a file with progress (XMLHttpRequest, since fetch reports no upload progress). */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', buildUrl(path));
    request.withCredentials = true;
    request.setRequestHeader('accept-language', requestLocale);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => {
      const data = request.responseText ? safeParse(request.responseText) : undefined;
      if (request.status >= 200 && request.status < 300) return resolve(data as T);
      const body = data && typeof data === 'object' && 'error' in data ? (data as ErrorBody) : undefined;
      reportAuthFailure(request.status, body?.error);
      reject(new ApiError(request.status, body, body?.message ?? request.statusText));
    };
    request.onerror = () => reject(new ApiError(undefined, undefined, 'Network error'));
    request.send(form);
  });
}
