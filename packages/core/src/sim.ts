/**
 * `@scanlab/core/sim`: the one renumbering protocol for simulators that change
 * a relation's size under running scans (see renumbering.ts). Programs that
 * model a real, fixed table never need it, so it stays off the main entry.
 * Browser-safe.
 *
 * @packageDocumentation
 */
export { cutStretch, type Renumbering, renumberSegment, restoreStretch } from "./renumbering.js";
