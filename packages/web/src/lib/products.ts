/** The key of every product query; a change to a product or a feature invalidates it. */
export const PRODUCTS_KEY = ['products'] as const;
