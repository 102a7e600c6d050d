import type { LicenseForFile } from '../license-files/repo.ts';
import { licenseEnd, refusalOf } from '../license-files/service.ts';

const endTime = (license: LicenseForFile) => licenseEnd(license)?.getTime() ?? Number.POSITIVE_INFINITY;

/** Newest product version first (release date, then catalogue order), then TAN over trial, longest running, newest. */
function byPreference(a: LicenseForFile, b: LicenseForFile): number {
  const releaseA = a.product.releaseDate ?? '';
  const releaseB = b.product.releaseDate ?? '';
  if (releaseA !== releaseB) return releaseA < releaseB ? 1 : -1;
  if (a.productId !== b.productId) return b.productId - a.productId;
  if (a.kind !== b.kind) return a.kind === 'TAN' ? -1 : 1;
  if (endTime(a) !== endTime(b)) return endTime(b) - endTime(a);
  return b.id - a.id;
}

/**
 * Which of a machine's licenses for a product the desktop software gets: the preferred usable one;
 * when none is usable, the newest one, whose refusal then tells the reason.
 */
export function chooseLicense(candidates: readonly LicenseForFile[], now: Date): LicenseForFile | undefined {
  // Most machines hold one license of a product: nothing to choose.
  if (candidates.length < 2) return candidates[0];
  const usable = candidates.filter((license) => !refusalOf(license, now, 403));
  if (usable.length) return [...usable].sort(byPreference)[0];
  return [...candidates].sort((a, b) => b.id - a.id)[0];
}
