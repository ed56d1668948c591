/** Node-only helpers. */
export {};
