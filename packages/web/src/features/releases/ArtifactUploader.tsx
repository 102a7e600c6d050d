import { useEffect, useRef } from 'react';
import Uppy from '@uppy/core';
import Dashboard from '@uppy/dashboard';
import Tus from '@uppy/tus';
import type { Locale } from '@uppy/core/utils';
import '@uppy/core/css/style.min.css';
import '@uppy/dashboard/css/style.min.css';

export interface ArtifactUploaderProps {
  /** The largest file the server takes (ARTIFACT_MAX_SIZE is checked there too). */
  onUploaded(uploadId: string, fileName: string): void;
  onFileAdded(fileName: string): void;
  locale: string;
}

/** Uppy's own texts in the interface's language (English is built in); each pack a chunk of its own. */
const UPPY_LOCALES: Record<string, () => Promise<{ default: Locale<0 | 1> }>> = {
  de: () => import('@uppy/locales/lib/de_DE.js'),
  fr: () => import('@uppy/locales/lib/fr_FR.js'),
  es: () => import('@uppy/locales/lib/es_ES.js'),
  it: () => import('@uppy/locales/lib/it_IT.js'),
};

/**
 * Uppy's dashboard uploading one file through tus to /api/uploads: progress shown throughout, and a
 * cut connection resumed where it stopped (Uppy retries and asks the server for the offset). Loaded
 * in a chunk of its own, only when an administrator adds a file.
 */
export default function ArtifactUploader({ onUploaded, onFileAdded, locale }: ArtifactUploaderProps) {
  const target = useRef<HTMLDivElement>(null);
  const handlers = useRef({ onUploaded, onFileAdded });
  handlers.current = { onUploaded, onFileAdded };
  useEffect(() => {
    const element = target.current;
    if (!element) return undefined;
    let uppy: Uppy | undefined;
    let closed = false;
    void (UPPY_LOCALES[locale]?.() ?? Promise.resolve(undefined)).then((pack) => {
      if (closed) return;
      uppy = new Uppy({ restrictions: { maxNumberOfFiles: 1 }, autoProceed: false, locale: pack?.default })
        .use(Dashboard, { inline: true, target: element, height: 320, proudlyDisplayPoweredByUppy: false, hideProgressDetails: false })
        .use(Tus, { endpoint: '/api/uploads', chunkSize: 50 * 1024 * 1024, retryDelays: [0, 1000, 3000, 5000, 10000, 20000], removeFingerprintOnSuccess: true, withCredentials: true });
      uppy.on('file-added', (file) => handlers.current.onFileAdded(file.name ?? ''));
      uppy.on('upload-success', (file, response) => {
        const location = response?.uploadURL ?? '';
        handlers.current.onUploaded(location.split('/').pop() ?? '', file?.name ?? '');
      });
    });
    return () => {
      closed = true;
      uppy?.destroy();
    };
  }, [locale]);
  return <div ref={target} data-testid="artifact-uploader" />;
}
