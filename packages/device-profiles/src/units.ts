/**
 * Unit constants. apps/docs/src/reference/storage-device-models.md#units-and-evidence-tags fixes the conventions the profiles use:
 * MB/s = 10^6 B/s, MiB = 2^20 B, and a vendor "KB" in an IOPS figure is 1024 B.
 * Time inside the models is microseconds, so rates are converted to bytes per
 * microsecond once, when a model is created, never on the hot path.
 */

/** 1 KiB in bytes (a vendor "4 KB" random read is 4 KiB; apps/docs/src/reference/storage-device-models.md#units-and-evidence-tags). */
export const KiB = 1024;
/** 1 MiB in bytes. */
export const MiB = 1024 * 1024;
/** 1 GiB in bytes. */
export const GiB = 1024 * 1024 * 1024;
/** 1 MB/s in bytes per second (apps/docs/src/reference/storage-device-models.md#units-and-evidence-tags: MB/s = 10^6 B/s). */
export const MB_PER_S = 1_000_000;
/** Microseconds in a second. */
export const US_PER_S = 1_000_000;
