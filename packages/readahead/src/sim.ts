/**
 * `@scanlab/readahead/sim`: hooks for a simulator that changes a table under
 * running scans (the warp of `@scanlab/simulator`, which cuts a steady
 * stretch out of a table and renumbers its segment files while they are
 * open). A program that only reads files never needs them, so they stay off
 * the main entry. Browser-safe.
 *
 * @packageDocumentation
 */
export { renameOpenFile } from "./model.js";
