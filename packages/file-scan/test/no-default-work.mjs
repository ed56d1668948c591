// A module without a default export: not a valid per-block work module.
export const notAFunction = 42;
