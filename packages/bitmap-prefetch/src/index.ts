/** @packageDocumentation Which pages to advise ahead in a bitmap heap scan: PostgreSQL 13-17 prefetch, 17/18/19 read streams, an adaptive policy, and seeded bitmap data sets. */
export const PACKAGE_NAME = "@scanlab/bitmap-prefetch";
