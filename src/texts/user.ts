/** Texts the user reads: notices, the status bar, `/todos` answers. Pure. */

/** Tokens as the user reads them: rounded, with thousands separators. */
export const formatTokens = (tokens: number): string => Math.round(tokens).toLocaleString("en-US");
/** Money in the provider's currency (pi does not say which), to four decimals. */
export const formatCost = (cost: number): string => cost.toFixed(4);
