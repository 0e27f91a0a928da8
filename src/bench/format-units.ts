/** Milliseconds with two decimals; "-" where nothing was measured. */
export const ms = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? "-" : value.toFixed(2));
/** Whole mebibytes; "-" where nothing was measured. */
export const mb = (bytes: number | undefined): string => (bytes === undefined ? "-" : `${(bytes / (1024 * 1024)).toFixed(0)} MB`);
